import { compactUsage, type Usage } from "../../canonical/usage.ts";

interface UsageLike {
  prompt_tokens?: number | null | undefined;
  completion_tokens?: number | null | undefined;
  total_tokens?: number | null | undefined;
  prompt_tokens_details?: { cached_tokens?: number | null | undefined } | null | undefined;
  completion_tokens_details?: { reasoning_tokens?: number | null | undefined } | null | undefined;
  num_cached_tokens?: number | null | undefined;
}

const n = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;

/**
 * OpenAI usage → canonical; absent fields stay undefined. The counts are inclusive already:
 * `prompt_tokens` counts the cached ones (`prompt_tokens_details.cached_tokens`, Mistral's too;
 * older Mistral answers name it `num_cached_tokens`), so nothing is added up here.
 */
export function convertUsage(usage: UsageLike | null | undefined): Usage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const out: Usage = compactUsage({
    promptTokens: n(usage.prompt_tokens),
    completionTokens: n(usage.completion_tokens),
    totalTokens: n(usage.total_tokens),
  });
  const cached = n(usage.prompt_tokens_details?.cached_tokens) ?? n(usage.num_cached_tokens);
  if (cached !== undefined) out.cachedPromptTokens = cached;
  const reasoning = n(usage.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  return Object.keys(out).length === 0 ? undefined : out;
}
