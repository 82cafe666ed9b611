/**
 * Token estimates for providers that report no usage: a real BPE tokenizer (o200k), flagged
 * `estimated` in the metadata. Chat messages get OpenAI's per-message overhead of 3 tokens
 * plus 3 for the reply priming.
 */
import type { ChatMessage } from "../canonical/chat.ts";
import { countTextTokens } from "./tokenizer.ts";

export function estimateTextTokens(text: string): Promise<number> {
  return countTextTokens(text);
}

export async function estimatePromptTokens(messages: readonly ChatMessage[]): Promise<number> {
  let total = 3;
  for (const m of messages) {
    total += 3 + await estimateTextTokens(m.content ?? "");
    if (m.role === "assistant" && m.toolCalls) {
      for (const call of m.toolCalls) {
        total += await estimateTextTokens(call.function.name) +
          await estimateTextTokens(call.function.arguments);
      }
    }
  }
  return total;
}
