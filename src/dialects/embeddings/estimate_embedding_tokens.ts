/**
 * A token estimate for embedding inputs, for providers that report no usage (flagged
 * `estimated` in the metadata). Text goes through a real BPE tokenizer (o200k); token arrays
 * count their length.
 */
import { countTokens } from "gpt-tokenizer";
import type { EmbeddingsInput } from "./request_schema.ts";

export function estimateEmbeddingTokens(input: EmbeddingsInput): number {
  if (typeof input === "string") return countText(input);
  let total = 0;
  for (const item of input) {
    if (typeof item === "string") total += countText(item);
    else if (typeof item === "number") total += 1;
    else total += item.length;
  }
  return total;
}

function countText(text: string): number {
  return text === "" ? 0 : countTokens(text);
}
