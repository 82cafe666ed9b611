/** Reported usage where the provider gave it; a tokenizer estimate (flagged) where not. */
import type { ChatMessage, ChatResult } from "../canonical/chat.ts";
import type { Usage } from "../canonical/usage.ts";
import { estimatePromptTokens, estimateTextTokens } from "../billing/estimate_tokens.ts";

export interface BillableUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimated: boolean;
}

/** Resolves at once when the provider reported both counts; estimates load the tokenizer. */
export async function billableUsage(
  messages: readonly ChatMessage[],
  usage: Usage | undefined,
  generatedText: () => string,
): Promise<BillableUsage> {
  let estimated = false;
  let promptTokens = usage?.promptTokens;
  if (promptTokens === undefined) {
    promptTokens = await estimatePromptTokens(messages);
    estimated = true;
  }
  let completionTokens = usage?.completionTokens;
  if (completionTokens === undefined) {
    completionTokens = await estimateTextTokens(generatedText());
    estimated = true;
  }
  const totalTokens = !estimated && usage?.totalTokens !== undefined
    ? usage.totalTokens
    : promptTokens + completionTokens;
  return { promptTokens, completionTokens, totalTokens, estimated };
}

/** The generated text of a whole result (every choice), for estimates. */
export function resultText(result: ChatResult): string {
  let text = "";
  for (const choice of [result, ...(result.moreChoices ?? [])]) {
    text += (choice.reasoning ?? "") + (choice.content ?? "");
    for (const call of choice.toolCalls ?? []) text += call.function.name + call.function.arguments;
  }
  return text;
}
