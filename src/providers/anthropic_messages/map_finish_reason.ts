import type { MappedFinishReason } from "../../canonical/finish_reason.ts";

/**
 * Anthropic `stop_reason` → unified finish reason, the raw value kept; an unknown value is
 * `other`, a missing one `stop`.
 * @see https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function mapAnthropicStopReason(reason: string | null | undefined): MappedFinishReason {
  const raw = reason ?? undefined;
  switch (reason) {
    case "tool_use":
      return { unified: "tool_calls", raw };
    case "max_tokens":
    case "model_context_window_exceeded":
      return { unified: "length", raw };
    case "refusal":
      return { unified: "content_filter", raw };
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
    case null:
    case undefined:
      return { unified: "stop", raw };
    default:
      return { unified: "other", raw };
  }
}
