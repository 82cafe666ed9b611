import type { ChatResult, ReasoningDetail, ToolCall } from "../../canonical/chat.ts";
import { ANTHROPIC_REASONING_FORMAT } from "../anthropic_messages/group_turns.ts";
import { convertBedrockUsage } from "./convert_usage.ts";
import { mapBedrockStopReason } from "./map_finish_reason.ts";
import { finishResultFields } from "../../canonical/finish_reason.ts";
import type { ConverseResponse } from "./wire.ts";

/**
 * A Converse answer → canonical result. Reasoning details carry the format
 * `anthropic-claude-v1` for Anthropic models (their signatures round-trip) and none otherwise.
 */
export function fromConverseResponse(response: ConverseResponse, anthropic: boolean): ChatResult {
  const format = anthropic ? ANTHROPIC_REASONING_FORMAT : null;
  const texts: string[] = [];
  const thoughts: string[] = [];
  const details: ReasoningDetail[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of response.output?.message?.content ?? []) {
    if (typeof block.text === "string") texts.push(block.text);
    if (block.toolUse) {
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: "function",
        function: {
          name: block.toolUse.name,
          arguments: JSON.stringify(block.toolUse.input ?? {}),
        },
      });
    }
    const reasoning = block.reasoningContent;
    if (reasoning?.reasoningText) {
      const text = reasoning.reasoningText.text ?? "";
      thoughts.push(text);
      details.push({
        type: "reasoning.text",
        text,
        signature: reasoning.reasoningText.signature ?? null,
        format,
        index: details.length,
      });
    } else if (typeof reasoning?.redactedContent === "string") {
      details.push({
        type: "reasoning.encrypted",
        data: reasoning.redactedContent,
        format,
        index: details.length,
      });
    }
  }
  const result: ChatResult = {
    content: texts.length > 0 ? texts.join("") : null,
    ...finishResultFields(mapBedrockStopReason(response.stopReason)),
    usage: convertBedrockUsage(response.usage),
  };
  if (thoughts.length > 0) result.reasoning = thoughts.join("");
  if (details.length > 0) result.reasoningDetails = details;
  if (toolCalls.length > 0) result.toolCalls = toolCalls;
  return result;
}
