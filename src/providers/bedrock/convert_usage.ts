import type { Usage } from "../../canonical/usage.ts";
import { compactUsage as compact } from "../../canonical/usage.ts";
import type { BedrockUsage } from "./wire.ts";

/**
 * Bedrock usage → canonical. Bedrock's counts are disjoint: `inputTokens` excludes cache reads
 * and writes (AWS prompt-caching docs: total input = inputTokens + cacheReadInputTokens +
 * cacheWriteInputTokens); the canonical prompt count is inclusive, their sum, and the 1-hour
 * writes come from `cacheDetails`. `totalTokens` is taken as reported (it already counts the
 * cache parts), else computed.
 */
export function convertBedrockUsage(usage: BedrockUsage | null | undefined): Usage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const input = usage.inputTokens ?? undefined;
  const output = usage.outputTokens ?? undefined;
  if (input === undefined && output === undefined) return undefined;
  const cacheRead = usage.cacheReadInputTokens ?? undefined;
  const cacheWrite = usage.cacheWriteInputTokens ?? undefined;
  const prompt = input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const computed = prompt !== undefined && output !== undefined ? prompt + output : undefined;
  return compact({
    promptTokens: prompt,
    completionTokens: output,
    totalTokens: usage.totalTokens ?? computed,
    cachedPromptTokens: cacheRead,
    cacheWritePromptTokens: cacheWrite,
    cacheWrite1hPromptTokens: hourlyWrites(usage),
  });
}

function hourlyWrites(usage: BedrockUsage): number | undefined {
  let sum: number | undefined;
  for (const detail of usage.cacheDetails ?? []) {
    if (detail.ttl === "1h" && detail.inputTokens != null) sum = (sum ?? 0) + detail.inputTokens;
  }
  return sum;
}
