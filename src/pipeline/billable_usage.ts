/** Reported usage where the provider gave it; a tokenizer estimate (flagged) where not. */
import type { ChatMessage, ChatResult } from "../canonical/chat.ts";
import type { Usage } from "../canonical/usage.ts";
import { estimatePromptTokens, estimateTextTokens } from "../billing/estimate_tokens.ts";

export interface BillableUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** The prompt's cache classes, as reported (an estimated prompt has none). */
  cachedPromptTokens?: number;
  cacheWritePromptTokens?: number;
  cacheWrite1hPromptTokens?: number;
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
  const billable: BillableUsage = { promptTokens, completionTokens, totalTokens, estimated };
  return withCacheClasses(billable, usage);
}

/**
 * The usage as reported, when the provider reported both counts (no tokenizer, nothing to
 * await: a whole answer's settle can then be built before it is answered); else undefined.
 */
export function reportedUsage(usage: Usage | undefined): BillableUsage | undefined {
  const promptTokens = usage?.promptTokens;
  const completionTokens = usage?.completionTokens;
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  const totalTokens = usage!.totalTokens ?? promptTokens + completionTokens;
  const billable: BillableUsage = { promptTokens, completionTokens, totalTokens, estimated: false };
  return withCacheClasses(billable, usage);
}

function withCacheClasses(billable: BillableUsage, usage: Usage | undefined): BillableUsage {
  // The cache classes are parts of the reported prompt: an estimated prompt keeps none.
  if (usage?.promptTokens !== undefined) {
    if (usage.cachedPromptTokens !== undefined) {
      billable.cachedPromptTokens = usage.cachedPromptTokens;
    }
    if (usage.cacheWritePromptTokens !== undefined) {
      billable.cacheWritePromptTokens = usage.cacheWritePromptTokens;
    }
    if (usage.cacheWrite1hPromptTokens !== undefined) {
      billable.cacheWrite1hPromptTokens = usage.cacheWrite1hPromptTokens;
    }
  }
  return billable;
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
