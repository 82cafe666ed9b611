import type { Usage } from "../../canonical/usage.ts";
import { compactUsage as compact } from "../../canonical/usage.ts";
import type { AnthropicUsage } from "./wire.ts";

/**
 * Anthropic usage → canonical. Anthropic's counts are disjoint: `input_tokens` excludes cache
 * reads (`cache_read_input_tokens`) and writes (`cache_creation_input_tokens`); the canonical
 * prompt count is inclusive (as OpenAI's is): the sum of the three, with the cache parts
 * reported apart, and the 1-hour writes from `cache_creation.ephemeral_1h_input_tokens`.
 * Undefined when the upstream reported neither input nor output.
 */
export function convertAnthropicUsage(usage: AnthropicUsage | null | undefined): Usage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const input = usage.input_tokens ?? undefined;
  const output = usage.output_tokens ?? undefined;
  if (input === undefined && output === undefined) return undefined;
  const cacheRead = usage.cache_read_input_tokens ?? undefined;
  const cacheWrite = usage.cache_creation_input_tokens ?? undefined;
  const prompt = input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  return compact({
    promptTokens: prompt,
    completionTokens: output,
    totalTokens: prompt !== undefined && output !== undefined ? prompt + output : undefined,
    cachedPromptTokens: cacheRead,
    cacheWritePromptTokens: cacheWrite,
    cacheWrite1hPromptTokens: usage.cache_creation?.ephemeral_1h_input_tokens ?? undefined,
  });
}

/** Merges a later (cumulative) usage report into an earlier one; non-null later values win. */
export function mergeAnthropicUsage(
  earlier: AnthropicUsage | undefined,
  later: AnthropicUsage | null | undefined,
): AnthropicUsage | undefined {
  if (later === null || later === undefined) return earlier;
  if (earlier === undefined) return later;
  return {
    input_tokens: later.input_tokens ?? earlier.input_tokens,
    output_tokens: later.output_tokens ?? earlier.output_tokens,
    cache_creation_input_tokens: later.cache_creation_input_tokens ??
      earlier.cache_creation_input_tokens,
    cache_read_input_tokens: later.cache_read_input_tokens ?? earlier.cache_read_input_tokens,
    cache_creation: later.cache_creation ?? earlier.cache_creation,
  };
}
