/**
 * zod schemas of what Anthropic Messages (on Vertex) answers: the message body, the SSE
 * events and the error bodies. Tolerant: optional fields `nullish`, objects loose.
 */
import { z } from "zod";

/** Maps values whose `type` is not one of `known` to `{type:"other"}`, so unions still narrow. */
function knownTypes<const T extends readonly string[]>(known: T) {
  return (value: unknown): unknown => {
    const type = typeof value === "object" && value !== null
      ? (value as { type?: unknown }).type
      : undefined;
    return typeof type === "string" && (known as readonly string[]).includes(type)
      ? value
      : { type: "other" };
  };
}
const Other = z.looseObject({ type: z.literal("other") });

export const AnthropicUsage = z.looseObject({
  input_tokens: z.number().int().nonnegative().nullish(),
  output_tokens: z.number().int().nonnegative().nullish(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
  cache_read_input_tokens: z.number().int().nonnegative().nullish(),
  /** The cache writes by TTL (newer API versions). */
  cache_creation: z.looseObject({
    ephemeral_5m_input_tokens: z.number().int().nonnegative().nullish(),
    ephemeral_1h_input_tokens: z.number().int().nonnegative().nullish(),
  }).nullish(),
});
export type AnthropicUsage = z.infer<typeof AnthropicUsage>;

export const AnthropicContentBlock = z.preprocess(
  knownTypes(["text", "thinking", "redacted_thinking", "tool_use"] as const),
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("text"), text: z.string() }),
    z.looseObject({
      type: z.literal("thinking"),
      thinking: z.string(),
      signature: z.string().nullish(),
    }),
    z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }),
    z.looseObject({
      type: z.literal("tool_use"),
      id: z.string(),
      name: z.string(),
      input: z.unknown(),
    }),
    Other,
  ]),
);
export type AnthropicContentBlock = z.infer<typeof AnthropicContentBlock>;

export const AnthropicMessage = z.looseObject({
  id: z.string().nullish(),
  type: z.string().nullish(),
  content: z.array(AnthropicContentBlock).nullish(),
  stop_reason: z.string().nullish(),
  usage: AnthropicUsage.nullish(),
});
export type AnthropicMessage = z.infer<typeof AnthropicMessage>;

const Delta = z.preprocess(
  knownTypes(["text_delta", "thinking_delta", "signature_delta", "input_json_delta"] as const),
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("text_delta"), text: z.string() }),
    z.looseObject({ type: z.literal("thinking_delta"), thinking: z.string() }),
    z.looseObject({ type: z.literal("signature_delta"), signature: z.string() }),
    z.looseObject({ type: z.literal("input_json_delta"), partial_json: z.string() }),
    Other,
  ]),
);

export const AnthropicErrorBody = z.looseObject({
  type: z.string().nullish(),
  error: z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }),
});

/** One SSE event of `:streamRawPredict`; unknown types fall into the last member. */
export const AnthropicStreamEvent = z.preprocess(
  knownTypes(
    [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
      "ping",
      "error",
    ] as const,
  ),
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("message_start"), message: AnthropicMessage }),
    z.looseObject({
      type: z.literal("content_block_start"),
      index: z.number().int(),
      content_block: AnthropicContentBlock,
    }),
    z.looseObject({
      type: z.literal("content_block_delta"),
      index: z.number().int(),
      delta: Delta,
    }),
    z.looseObject({ type: z.literal("content_block_stop"), index: z.number().int() }),
    z.looseObject({
      type: z.literal("message_delta"),
      delta: z.looseObject({ stop_reason: z.string().nullish() }).nullish(),
      usage: AnthropicUsage.nullish(),
    }),
    z.looseObject({ type: z.literal("message_stop") }),
    z.looseObject({ type: z.literal("ping") }),
    z.looseObject({
      type: z.literal("error"),
      error: z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
    }),
    Other,
  ]),
);
export type AnthropicStreamEvent = z.infer<typeof AnthropicStreamEvent>;

/** Google front-end errors: `{error:{code,message,status}}`, sometimes in a one-element array. */
export const GoogleErrorBody = z.looseObject({
  error: z.looseObject({
    code: z.number().int().nullish(),
    message: z.string().nullish(),
    status: z.string().nullish(),
  }),
});
