/**
 * The simulators' prompt cache, as the providers keep theirs: a prompt prefix that ends at a
 * breakpoint (Anthropic `cache_control`, Bedrock `cachePoint`) and holds at least the model's
 * minimum of tokens is written on first sight and read by a later request that repeats it
 * exactly, until its TTL (5 minutes, or 1 hour) passes since its last use. Of a request's
 * breakpoints the longest cached prefix is read; what lies between it and the last eligible
 * breakpoint is written, each stretch at the TTL of the breakpoint that ends it. Prefixes are
 * kept as SHA-256 hashes with their expiry (no content).
 *
 * Mistral's automatic cache (`prompt_cache_key`) is `blockCache`: prefixes of 64-token blocks.
 */
import { createHash } from "node:crypto";

export type SimTtl = "5m" | "1h";

/** One breakpoint of a request: the hash and token count of the prompt up to it. */
export interface SimCachePoint {
  hash: string;
  tokens: number;
  ttl: SimTtl;
}

export interface SimCacheUse {
  read: number;
  write: number;
  /** Of `write`: written with the 1-hour TTL. */
  write1h: number;
}

const TTL_MS: Record<SimTtl, number> = { "5m": 300_000, "1h": 3_600_000 };
const MAX_ENTRIES = 10_000;

export function prefixHash(model: string, prefix: string): string {
  return createHash("sha256").update(`${model}\u0000${prefix}`).digest("hex");
}

/**
 * The fewest prompt tokens a cache point needs (Anthropic's and Bedrock's published minimums:
 * 4,096 for Claude Haiku 4.5 and Opus 4.5, 1,000 for Nova, 1,024 for the other Claude models).
 */
export function cacheMinimum(model: string): number {
  const id = model.toLowerCase();
  if (/haiku-4-5|opus-4-5/.test(id)) return 4_096;
  if (id.includes("nova")) return 1_000;
  return 1_024;
}

export class SimPromptCache {
  #expires = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Reads and writes the cache for one request's breakpoints (in prompt order). */
  use(points: readonly SimCachePoint[], minimum: number): SimCacheUse {
    const now = this.now();
    const eligible = points.filter((p) => p.tokens >= minimum);
    let read = 0;
    for (const point of eligible) {
      const expires = this.#expires.get(point.hash);
      if (expires !== undefined && expires > now) read = Math.max(read, point.tokens);
    }
    let write = 0;
    let write1h = 0;
    let covered = read;
    for (const point of eligible) {
      if (point.tokens > covered) {
        const stretch = point.tokens - covered;
        write += stretch;
        if (point.ttl === "1h") write1h += stretch;
        covered = point.tokens;
      }
      // Written, or refreshed by this use.
      if (this.#expires.size >= MAX_ENTRIES) this.#expires.clear();
      this.#expires.set(point.hash, now + TTL_MS[point.ttl]);
    }
    return { read, write, write1h };
  }
}

/** Mistral's block size: cached tokens come in multiples of it, prompts below it never hit. */
export const CACHE_BLOCK_TOKENS = 64;

/**
 * Mistral-style automatic prefix caching under a `prompt_cache_key`: the prompt's leading
 * 64-token blocks seen before under the same key (and model) are read from the cache.
 */
export class SimBlockCache {
  #expires = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Cached tokens of this prompt (its tokens in order); its blocks are remembered. */
  use(model: string, key: string, tokens: readonly string[]): number {
    const now = this.now();
    const hash = createHash("sha256").update(`${model}\u0000${key}\u0000`);
    let cached = 0;
    let missed = false;
    for (let end = CACHE_BLOCK_TOKENS; end <= tokens.length; end += CACHE_BLOCK_TOKENS) {
      hash.update(tokens.slice(end - CACHE_BLOCK_TOKENS, end).join(" ") + "\u0000");
      const id = hash.copy().digest("hex");
      const expires = this.#expires.get(id);
      if (!missed && expires !== undefined && expires > now) cached = end;
      else missed = true;
      if (this.#expires.size >= MAX_ENTRIES) this.#expires.clear();
      this.#expires.set(id, now + TTL_MS["5m"]);
    }
    return cached;
  }
}
