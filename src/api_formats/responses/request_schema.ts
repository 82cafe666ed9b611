/**
 * The body of `POST /v1/responses` (OpenAI Responses API, stateless subset). Tolerant: unknown
 * fields pass, optional fields accept `null`. The schema has no transforms, so the same value
 * feeds `/openapi.json` through `z.toJSONSchema`. What the gateway refuses (images, files,
 * `store: true`, hosted tools …) is accepted here and refused by `decodeResponsesRequest`,
 * which names the field.
 */
import { z } from "zod";
import { EndUserId } from "../../canonical/end_user.ts";
import { CacheControlSchema } from "../../canonical/cache_control_schema.ts";

const InputTextPart = z.looseObject({
  type: z.literal("input_text"),
  text: z.string(),
  cache_control: CacheControlSchema.nullish(),
});
const OutputTextPart = z.looseObject({ type: z.literal("output_text"), text: z.string() });
const RefusalPart = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });
/** Accepted by the schema only so that the decoder can refuse it with code `input`. */
const InputImagePart = z.looseObject({ type: z.literal("input_image") });
/** Accepted by the schema only so that the decoder can refuse it with code `input`. */
const InputFilePart = z.looseObject({ type: z.literal("input_file") });

export const ResponsesContentPart = z.discriminatedUnion("type", [
  InputTextPart,
  OutputTextPart,
  RefusalPart,
  InputImagePart,
  InputFilePart,
]);
export type ResponsesContentPart = z.infer<typeof ResponsesContentPart>;

const MessageItem = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "system", "developer", "assistant"]),
  content: z.union([z.string(), z.array(ResponsesContentPart)]),
  id: z.string().nullish(),
  status: z.string().nullish(),
  cache_control: CacheControlSchema.nullish(),
});

const FunctionCallItem = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  id: z.string().nullish(),
  status: z.string().nullish(),
});

const FunctionCallOutputItem = z.looseObject({
  type: z.literal("function_call_output"),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(ResponsesContentPart)]),
  id: z.string().nullish(),
  status: z.string().nullish(),
  cache_control: CacheControlSchema.nullish(),
});

export { ReasoningDetailSchema } from "../../canonical/reasoning_detail_schema.ts";
import { ReasoningDetailSchema } from "../../canonical/reasoning_detail_schema.ts";

const ReasoningItem = z.looseObject({
  type: z.literal("reasoning"),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })).nullish(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
  /** Sovra extension: the canonical reasoning details of the turn, replayed unchanged. */
  reasoning_details: z.array(ReasoningDetailSchema).nullish(),
  status: z.string().nullish(),
});

/** Accepted by the schema only so that the decoder can refuse it with code `input`. */
const ItemReference = z.looseObject({ type: z.literal("item_reference"), id: z.string() });

export const ResponsesInputItem = z.discriminatedUnion("type", [
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
  ItemReference,
]);
export type ResponsesInputItem = z.infer<typeof ResponsesInputItem>;

export const ResponsesFunctionTool = z.looseObject({
  type: z.literal("function"),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
  cache_control: CacheControlSchema.nullish(),
});
export type ResponsesFunctionTool = z.infer<typeof ResponsesFunctionTool>;

/** Web search, file search, MCP, code interpreter …: refused, the gateway runs no tools. */
const HostedTool = z.looseObject({
  type: z.string().refine((type) => type !== "function", "function tools need a 'name'"),
});

export const ResponsesTool = z.union([ResponsesFunctionTool, HostedTool]);
export type ResponsesTool = z.infer<typeof ResponsesTool>;

export const ResponsesToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({ type: z.literal("function"), name: z.string().min(1) }),
  /** `allowed_tools` and hosted-tool choices: refused by the decoder. */
  z.looseObject({
    type: z.string().refine((type) => type !== "function", "function choices need a 'name'"),
  }),
]);
export type ResponsesToolChoice = z.infer<typeof ResponsesToolChoice>;

export const ResponsesReasoning = z.looseObject({
  effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).nullish(),
  /** OpenRouter-style token budget. */
  max_tokens: z.number().int().positive().nullish(),
  /** True: the model reasons but no reasoning text is returned. */
  exclude: z.boolean().nullish(),
  enabled: z.boolean().nullish(),
  /** Accepted and echoed; reasoning comes back as `reasoning_text` where the model shows it. */
  summary: z.string().nullish(),
});
export type ResponsesReasoning = z.infer<typeof ResponsesReasoning>;

export const ResponsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(ResponsesInputItem)]),
  instructions: z.string().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  reasoning: ResponsesReasoning.nullish(),
  tools: z.array(ResponsesTool).nullish(),
  tool_choice: ResponsesToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stream: z.boolean().nullish(),
  user: EndUserId.nullish(),
  /** Forwarded as chat's `prompt_cache_key` where the model takes it (Mistral's prompt cache). */
  prompt_cache_key: z.string().nullish(),
  /** Echoed back (string values only); never forwarded. */
  metadata: z.record(z.string(), z.unknown()).nullish(),
  /** `true` is refused: the gateway stores no responses. */
  store: z.boolean().nullish(),
  /** Any value is refused: earlier turns must be resent in `input`. */
  previous_response_id: z.string().nullish(),
  /** `format` becomes chat's `response_format`; other fields are ignored (and named). */
  text: z.looseObject({
    format: z.looseObject({ type: z.string() }).nullish(),
  }).nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;
