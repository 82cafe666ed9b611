import type { MappedFinishReason } from "../../canonical/finish_reason.ts";

/**
 * OpenAI `finish_reason` → unified finish reason, the raw value kept; an unknown value is
 * `other`, a missing one `stop`.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */
export function mapOpenAIFinishReason(value: string | null | undefined): MappedFinishReason {
  const raw = value ?? undefined;
  switch (value) {
    case "stop":
    case "length":
    case "tool_calls":
    case "content_filter":
    case "error":
      return { unified: value, raw };
    case "function_call":
      return { unified: "tool_calls", raw };
    case null:
    case undefined:
      return { unified: "stop", raw };
    default:
      return { unified: "other", raw };
  }
}
