/**
 * Token usage as the gateway counts it. A field that the provider did not report is
 * `undefined`, never `0`: billing must tell "free" from "not reported".
 */
export interface Usage {
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
  totalTokens?: number | undefined;
  /** Prompt tokens served from a provider cache (billed at the prompt price here). */
  cachedPromptTokens?: number | undefined;
  /** Prompt tokens written to a provider cache (Anthropic `cache_creation_input_tokens`). */
  cacheWritePromptTokens?: number | undefined;
  reasoningTokens?: number | undefined;
}

/** True when both billable counts were reported. */
export function isUsageComplete(usage: Usage | undefined): usage is Usage & {
  promptTokens: number;
  completionTokens: number;
} {
  return usage?.promptTokens !== undefined && usage.completionTokens !== undefined;
}
