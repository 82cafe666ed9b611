import type { ChatResult, ReasoningDetail, ToolCall } from "../../canonical/chat.ts";
import { ANTHROPIC_REASONING_FORMAT } from "./group_turns.ts";
import { convertAnthropicUsage } from "./convert_usage.ts";
import { mapAnthropicStopReason } from "./map_finish_reason.ts";
import { finishResultFields } from "../../canonical/finish_reason.ts";
import type { AnthropicMessage } from "./wire.ts";

/** A whole Anthropic message → canonical result. */
export function fromAnthropicMessage(message: AnthropicMessage): ChatResult {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const details: ReasoningDetail[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of message.content ?? []) {
    if ("text" in block && block.type === "text" && typeof block.text === "string") {
      texts.push(block.text);
    } else if (
      block.type === "thinking" && "thinking" in block && typeof block.thinking === "string"
    ) {
      thoughts.push(block.thinking);
      details.push({
        type: "reasoning.text",
        text: block.thinking,
        signature: typeof block.signature === "string" ? block.signature : null,
        format: ANTHROPIC_REASONING_FORMAT,
        index: details.length,
      });
    } else if (
      block.type === "redacted_thinking" && "data" in block && typeof block.data === "string"
    ) {
      details.push({
        type: "reasoning.encrypted",
        data: block.data,
        format: ANTHROPIC_REASONING_FORMAT,
        index: details.length,
      });
    } else if (
      block.type === "tool_use" && "id" in block && typeof block.id === "string" && "name" in block
    ) {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const result: ChatResult = {
    content: texts.length > 0 ? texts.join("") : null,
    ...finishResultFields(mapAnthropicStopReason(message.stop_reason)),
    usage: convertAnthropicUsage(message.usage),
  };
  if (typeof message.id === "string") result.id = message.id;
  if (thoughts.length > 0) result.reasoning = thoughts.join("");
  if (details.length > 0) result.reasoningDetails = details;
  if (toolCalls.length > 0) result.toolCalls = toolCalls;
  return result;
}
