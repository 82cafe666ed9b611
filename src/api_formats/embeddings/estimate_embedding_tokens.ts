/**
 * A token estimate for embedding inputs, for providers that report no usage (flagged
 * `estimated` in the metadata). Text goes through a real BPE tokenizer (o200k, bounded work:
 * see billing/tokenizer.ts); token arrays count their length.
 */
import type { EmbeddingsInput } from "./request_schema.ts";
import { countTextsTokens } from "../../billing/tokenizer.ts";

export async function estimateEmbeddingTokens(input: EmbeddingsInput): Promise<number> {
  if (typeof input === "string") return await countTextsTokens([input]);
  const texts: string[] = [];
  let total = 0;
  for (const item of input) {
    if (typeof item === "string") texts.push(item);
    else if (typeof item === "number") total += 1;
    else total += item.length;
  }
  return total + await countTextsTokens(texts);
}
