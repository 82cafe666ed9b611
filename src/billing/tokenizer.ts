/**
 * The BPE tokenizer (o200k, `gpt-tokenizer`) for usage estimates, loaded on first use: it
 * costs ~66 MB of RSS and is needed only where a provider reports no usage.
 *
 * BPE merges grow with the square of an unbroken word ("ab" × 128,000 froze the main thread
 * for seconds), so no tokenizer call sees more than `CHUNK_CHARS` characters, the gateway
 * yields to other requests between calls, and a text longer than `SAMPLE_CHUNKS` chunks is
 * sampled evenly and extrapolated by length. Cost per text: O(min(length, 64 Ki)) on the main
 * thread, in slices of about a millisecond.
 */
type Tokenizer = typeof import("gpt-tokenizer");

let loading: Promise<Tokenizer> | undefined;

/** Characters per tokenizer call: small enough that one unbroken word costs ~1 ms. */
export const CHUNK_CHARS = 2048;
/** Chunks counted exactly; longer texts are sampled (32 × 2 Ki = 64 Ki characters). */
export const SAMPLE_CHUNKS = 32;

export function loadTokenizer(): Promise<Tokenizer> {
  return loading ??= import("gpt-tokenizer").catch((error) => {
    loading = undefined; // a failed load is retried by the next estimate
    throw error;
  });
}

/** Lets timers and I/O (other requests, /healthz) run between two tokenizer slices. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The end of a chunk starting at `start`, never splitting a surrogate pair. */
function chunkEnd(text: string, start: number): number {
  const end = Math.min(text.length, start + CHUNK_CHARS);
  const last = text.charCodeAt(end - 1);
  return end < text.length && last >= 0xd800 && last <= 0xdbff ? end + 1 : end;
}

/** Tokens of a text by the real tokenizer (estimated by sampling beyond 64 Ki characters). */
export async function countTextTokens(text: string): Promise<number> {
  if (text === "") return 0;
  const tokenizer = await loadTokenizer();
  if (text.length <= CHUNK_CHARS) return tokenizer.countTokens(text);
  const chunks = Math.ceil(text.length / CHUNK_CHARS);
  const sampled = Math.min(chunks, SAMPLE_CHUNKS);
  let tokens = 0;
  let chars = 0;
  let start = 0;
  for (let i = 0; i < sampled; i++) {
    if (chunks > SAMPLE_CHUNKS) {
      start = Math.max(start, Math.floor((i * chunks) / SAMPLE_CHUNKS) * CHUNK_CHARS);
    }
    const end = chunkEnd(text, start);
    tokens += tokenizer.countTokens(text.slice(start, end));
    chars += end - start;
    start = end;
    await yieldToEventLoop();
  }
  return chars === text.length ? tokens : Math.round((tokens * text.length) / chars);
}

/**
 * Tokens of several texts (messages, embedding inputs) within the same bound as one text:
 * exact per text up to 64 Ki characters in all, beyond that one sampled estimate of the texts
 * joined by newlines.
 */
export async function countTextsTokens(texts: readonly string[]): Promise<number> {
  let length = 0;
  for (const text of texts) length += text.length;
  if (length > CHUNK_CHARS * SAMPLE_CHUNKS) return await countTextTokens(texts.join("\n"));
  let tokens = 0;
  let sinceYield = 0;
  for (const text of texts) {
    tokens += await countTextTokens(text);
    sinceYield += text.length;
    if (sinceYield >= CHUNK_CHARS) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  return tokens;
}
