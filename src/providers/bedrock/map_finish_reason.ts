import type { MappedFinishReason } from "../../canonical/finish_reason.ts";

/**
 * Bedrock `stopReason` → unified finish reason, the raw value kept; an unknown value is
 * `other`, a missing one `stop`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export function mapBedrockStopReason(reason: string | null | undefined): MappedFinishReason {
  const raw = reason ?? undefined;
  switch (reason) {
    case "tool_use":
      return { unified: "tool_calls", raw };
    case "max_tokens":
    case "model_context_window_exceeded":
      return { unified: "length", raw };
    case "guardrail_intervened":
    case "content_filtered":
      return { unified: "content_filter", raw };
    case "malformed_model_output":
    case "malformed_tool_use":
      return { unified: "error", raw };
    case "end_turn":
    case "stop_sequence":
    case null:
    case undefined:
      return { unified: "stop", raw };
    default:
      return { unified: "other", raw };
  }
}
