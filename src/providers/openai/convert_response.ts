/** `openai`-dialect completion → canonical result (every choice, ordered by index). */
import type { ChatResult, ChoiceResult, ToolCall } from "../../canonical/chat.ts";
import { validReasoningDetails } from "../../canonical/reasoning_detail_schema.ts";
import { finishResultFields } from "../../canonical/finish_reason.ts";
import { mapOpenAIFinishReason } from "./map_finish_reason.ts";
import type { WireChatCompletion } from "./wire.ts";
import { convertUsage } from "./convert_usage.ts";

type WireChoice = WireChatCompletion["choices"][number];

function convertChoice(choice: WireChoice): ChoiceResult {
  const message = choice.message;
  let content: string | null = null;
  let reasoning = message.reasoning ?? message.reasoning_content ?? undefined;
  if (typeof message.content === "string") {
    content = message.content;
  } else if (Array.isArray(message.content)) {
    // Mistral's thinking chunks.
    let text = "";
    let thinking = "";
    for (const part of message.content) {
      if (part.type === "text" && part.text) text += part.text;
      if (part.type === "thinking" && part.thinking) {
        for (const t of part.thinking) thinking += t.text ?? "";
      }
    }
    content = text;
    if (thinking) reasoning = (reasoning ?? "") + thinking;
  }
  const result: ChoiceResult = {
    content,
    ...finishResultFields(mapOpenAIFinishReason(choice.finish_reason)),
  };
  if (reasoning) result.reasoning = reasoning;
  const details = validReasoningDetails(message.reasoning_details ?? []);
  if (details.length > 0) result.reasoningDetails = details;
  if (message.tool_calls && message.tool_calls.length > 0) {
    result.toolCalls = message.tool_calls.map((c): ToolCall => ({
      id: c.id,
      type: "function",
      function: {
        name: c.function.name,
        arguments: typeof c.function.arguments === "string"
          ? c.function.arguments
          : JSON.stringify(c.function.arguments),
      },
    }));
    if (result.finishReason === "stop") result.finishReason = "tool_calls";
  }
  return result;
}

export function convertResponse(wire: WireChatCompletion): ChatResult {
  const [first, ...rest] = [...wire.choices].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const result: ChatResult = { ...convertChoice(first!), usage: convertUsage(wire.usage) };
  if (wire.id) result.id = wire.id;
  if (rest.length > 0) result.moreChoices = rest.map(convertChoice);
  return result;
}
