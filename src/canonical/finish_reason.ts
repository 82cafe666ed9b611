import type { FinishReason } from "./chat.ts";

/** Maps an OpenAI-style finish reason; unknown upstream values become `stop`. */
export function normalizeFinishReason(value: string | null | undefined): FinishReason {
  switch (value) {
    case "stop":
    case "length":
    case "tool_calls":
    case "content_filter":
    case "error":
      return value;
    case "function_call":
      return "tool_calls";
    default:
      return "stop";
  }
}
