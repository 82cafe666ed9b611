import type { FinishReason } from "../../canonical/chat.ts";

/** Anthropic `stop_reason` → canonical finish reason; unknown values become `stop`. */
export function mapAnthropicStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    default:
      return "stop";
  }
}
