import type { FinishReason } from "../../canonical/chat.ts";

/** Bedrock `stopReason` → canonical finish reason; unknown values become `stop`. */
export function mapBedrockStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "guardrail_intervened":
    case "content_filtered":
      return "content_filter";
    case "malformed_model_output":
    case "malformed_tool_use":
      return "error";
    case "end_turn":
    case "stop_sequence":
      return "stop";
    default:
      return "stop";
  }
}
