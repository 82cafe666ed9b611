/**
 * The BPE tokenizer (o200k, `gpt-tokenizer`) for usage estimates, loaded on first use: it
 * costs ~66 MB of RSS and is needed only where a provider reports no usage.
 */
type Tokenizer = typeof import("gpt-tokenizer");

let loading: Promise<Tokenizer> | undefined;

export function loadTokenizer(): Promise<Tokenizer> {
  return loading ??= import("gpt-tokenizer").catch((error) => {
    loading = undefined; // a failed load is retried by the next estimate
    throw error;
  });
}

/** Tokens of a text by the real tokenizer. */
export async function countTextTokens(text: string): Promise<number> {
  if (text === "") return 0;
  return (await loadTokenizer()).countTokens(text);
}
