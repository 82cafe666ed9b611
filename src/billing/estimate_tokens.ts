/**
 * Token estimates for providers that report no usage: a real BPE tokenizer (o200k), flagged
 * `estimated` in the metadata. Chat messages get OpenAI's per-message overhead of 3 tokens
 * plus 3 for the reply priming.
 */
import { countTokens } from "gpt-tokenizer";
import type { ChatMessage } from "../canonical/chat.ts";

export function estimateTextTokens(text: string): number {
  return text === "" ? 0 : countTokens(text);
}

export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  let total = 3;
  for (const m of messages) {
    total += 3 + estimateTextTokens(m.content ?? "");
    if (m.role === "assistant" && m.toolCalls) {
      for (const call of m.toolCalls) {
        total += estimateTextTokens(call.function.name) +
          estimateTextTokens(call.function.arguments);
      }
    }
  }
  return total;
}
