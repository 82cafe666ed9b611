/**
 * zod schemas of Bedrock Converse answers (botocore `bedrock-runtime/2023-09-30`): the
 * Converse body and the ConverseStream event payloads. Tolerant readers: `nullish`, loose.
 */
import { z } from "zod";

export const BedrockUsage = z.looseObject({
  inputTokens: z.number().int().nonnegative().nullish(),
  outputTokens: z.number().int().nonnegative().nullish(),
  totalTokens: z.number().int().nonnegative().nullish(),
  cacheReadInputTokens: z.number().int().nonnegative().nullish(),
  cacheWriteInputTokens: z.number().int().nonnegative().nullish(),
  /** The cache writes by TTL (`[{ttl: "5m" | "1h", inputTokens}]`). */
  cacheDetails: z.array(z.looseObject({
    ttl: z.string().nullish(),
    inputTokens: z.number().int().nonnegative().nullish(),
  })).nullish(),
});
export type BedrockUsage = z.infer<typeof BedrockUsage>;

const ReasoningContent = z.looseObject({
  reasoningText: z.looseObject({ text: z.string().nullish(), signature: z.string().nullish() })
    .nullish(),
  redactedContent: z.string().nullish(),
});

export const BedrockContentBlock = z.looseObject({
  text: z.string().nullish(),
  toolUse: z.looseObject({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).nullish(),
  reasoningContent: ReasoningContent.nullish(),
});
export type BedrockContentBlock = z.infer<typeof BedrockContentBlock>;

export const ConverseResponse = z.looseObject({
  output: z.looseObject({
    message: z.looseObject({ content: z.array(BedrockContentBlock).nullish() }).nullish(),
  }).nullish(),
  stopReason: z.string().nullish(),
  usage: BedrockUsage.nullish(),
});
export type ConverseResponse = z.infer<typeof ConverseResponse>;

export const ContentBlockStartEvent = z.looseObject({
  contentBlockIndex: z.number().int().nonnegative(),
  start: z.looseObject({
    toolUse: z.looseObject({ toolUseId: z.string(), name: z.string() }).nullish(),
  }).nullish(),
});

export const ContentBlockDeltaEvent = z.looseObject({
  contentBlockIndex: z.number().int().nonnegative(),
  delta: z.looseObject({
    text: z.string().nullish(),
    toolUse: z.looseObject({ input: z.string().nullish() }).nullish(),
    reasoningContent: z.looseObject({
      text: z.string().nullish(),
      signature: z.string().nullish(),
      redactedContent: z.string().nullish(),
    }).nullish(),
  }),
});

export const MessageStopEvent = z.looseObject({ stopReason: z.string().nullish() });

export const MetadataEvent = z.looseObject({ usage: BedrockUsage.nullish() });

/** Error bodies: `{message}` (sometimes `Message`), with `__type` or `code` on some paths. */
export const BedrockErrorBody = z.looseObject({
  message: z.string().nullish(),
  Message: z.string().nullish(),
  __type: z.string().nullish(),
  code: z.string().nullish(),
});
