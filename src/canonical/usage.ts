/**
 * Token usage as the gateway counts it. A field that the provider did not report is
 * `undefined`, never `0`: billing must tell "free" from "not reported".
 *
 * Counts are inclusive, as OpenAI's are: `promptTokens` is every prompt token, cache reads and
 * writes included; `cachedPromptTokens` and `cacheWritePromptTokens` say how many of them were
 * read from or written to the provider's cache. Providers whose input count excludes the cache
 * (Anthropic's `input_tokens`, Bedrock's `inputTokens`) are added up on the way in.
 */
export interface Usage {
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
  totalTokens?: number | undefined;
  /** Of the prompt tokens: served from a provider cache (billed at the cached price). */
  cachedPromptTokens?: number | undefined;
  /** Of the prompt tokens: written to a provider cache (Anthropic `cache_creation_input_tokens`). */
  cacheWritePromptTokens?: number | undefined;
  /** Of the cache writes: those with the 1-hour TTL (billed at the 1-hour write price). */
  cacheWrite1hPromptTokens?: number | undefined;
  reasoningTokens?: number | undefined;
}

/** True when both billable counts were reported. */
export function isUsageComplete(usage: Usage | undefined): usage is Usage & {
  promptTokens: number;
  completionTokens: number;
} {
  return usage?.promptTokens !== undefined && usage.completionTokens !== undefined;
}

/** Drops fields that were not reported, so a usage object lists only what the upstream said. */
export function compactUsage(usage: Usage): Usage {
  const out: Usage = {};
  for (const [key, value] of Object.entries(usage) as Array<[keyof Usage, number | undefined]>) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** A later usage report adds to what is known; an unreported field never erases a count. */
export function mergeUsage(known: Usage | undefined, next: Usage): Usage {
  return { ...known, ...compactUsage(next) };
}
