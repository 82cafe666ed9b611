/**
 * Token estimates for providers that report no usage: a real BPE tokenizer (o200k), flagged
 * `estimated` in the metadata. Chat messages get OpenAI's per-message overhead of 3 tokens
 * plus 3 for the reply priming. Bounded work per request whatever the prompt (tokenizer.ts).
 */
import type { ChatMessage } from "../canonical/chat.ts";
import { countTextsTokens, countTextTokens } from "./tokenizer.ts";

export function estimateTextTokens(text: string): Promise<number> {
  return countTextTokens(text);
}

export async function estimatePromptTokens(messages: readonly ChatMessage[]): Promise<number> {
  const texts: string[] = [];
  for (const m of messages) {
    texts.push(m.content ?? "");
    if (m.role === "assistant" && m.toolCalls) {
      for (const call of m.toolCalls) texts.push(call.function.name, call.function.arguments);
    }
  }
  return 3 + 3 * messages.length + await countTextsTokens(texts);
}
