/**
 * Prompt-cache counts as each provider reports them, turned into the gateway's inclusive usage
 * (OpenAI's convention: `prompt_tokens` counts every prompt token, the cached ones included).
 *
 * | provider                | input count excludes the cache? | fields                                                        |
 * | ----------------------- | ------------------------------- | ------------------------------------------------------------- |
 * | Anthropic (Vertex)      | yes (disjoint)                  | `input_tokens`, `cache_read_input_tokens`, `cache_creation_*` |
 * | Bedrock Converse        | yes (disjoint)                  | `inputTokens`, `cacheReadInputTokens`, `cacheWriteInputTokens` |
 * | OpenAI dialect, Mistral | no (inclusive)                  | `prompt_tokens`, `prompt_tokens_details.cached_tokens`        |
 *
 * Field values below are the providers' documented examples.
 */
import assert from "node:assert/strict";
import { convertAnthropicUsage } from "../../src/providers/anthropic_messages/convert_usage.ts";
import { convertBedrockUsage } from "../../src/providers/bedrock/convert_usage.ts";
import { convertUsage } from "../../src/providers/openai/convert_usage.ts";
import { costMicroEur } from "../../src/billing/cost.ts";

const PRICES = {
  prompt_micro_eur_per_million: 1_000_000,
  completion_micro_eur_per_million: 1_000_000,
  cached_prompt_micro_eur_per_million: 100_000,
  cache_write_micro_eur_per_million: 1_250_000,
  cache_write_1h_micro_eur_per_million: 2_000_000,
};

Deno.test("Anthropic usage — disjoint counts added into an inclusive prompt, the 1-hour writes apart", () => {
  const usage = convertAnthropicUsage({
    input_tokens: 50,
    cache_read_input_tokens: 100_000,
    cache_creation_input_tokens: 248,
    cache_creation: { ephemeral_5m_input_tokens: 48, ephemeral_1h_input_tokens: 200 },
    output_tokens: 503,
  });
  assert.deepEqual(usage, {
    promptTokens: 100_298,
    completionTokens: 503,
    totalTokens: 100_801,
    cachedPromptTokens: 100_000,
    cacheWritePromptTokens: 248,
    cacheWrite1hPromptTokens: 200,
  });
  // Billed once per class: 50 at the prompt price, never 100,298.
  assert.equal(costMicroEur(PRICES, usage!), Math.ceil(50 + 10_000 + 48 * 1.25 + 400 + 503));
});

Deno.test("Bedrock usage — disjoint counts added into an inclusive prompt, cacheDetails' 1-hour writes apart", () => {
  const usage = convertBedrockUsage({
    inputTokens: 12,
    outputTokens: 40,
    totalTokens: 2_052,
    cacheReadInputTokens: 1_000,
    cacheWriteInputTokens: 1_000,
    cacheDetails: [{ ttl: "5m", inputTokens: 400 }, { ttl: "1h", inputTokens: 600 }],
  });
  assert.deepEqual(usage, {
    promptTokens: 2_012,
    completionTokens: 40,
    totalTokens: 2_052,
    cachedPromptTokens: 1_000,
    cacheWritePromptTokens: 1_000,
    cacheWrite1hPromptTokens: 600,
  });
  assert.equal(costMicroEur(PRICES, usage!), 12 + 100 + 500 + 1_200 + 40);
});

Deno.test("OpenAI-dialect usage — inclusive already: prompt_tokens kept, cached_tokens its part", () => {
  // Mistral's prompt-caching page: 1,013 prompt tokens of which 1,008 cached.
  const usage = convertUsage({
    prompt_tokens: 1_013,
    completion_tokens: 30,
    total_tokens: 1_043,
    prompt_tokens_details: { cached_tokens: 1_008 },
  });
  assert.deepEqual(usage, {
    promptTokens: 1_013,
    completionTokens: 30,
    totalTokens: 1_043,
    cachedPromptTokens: 1_008,
  });
  // "5 uncached input tokens at the standard price, 1008 at 10 %, 30 completion tokens."
  assert.equal(costMicroEur(PRICES, usage!), Math.ceil(5 + 100.8 + 30));
  // Older Mistral answers name it num_cached_tokens.
  assert.equal(
    convertUsage({ prompt_tokens: 128, completion_tokens: 1, num_cached_tokens: 64 })
      ?.cachedPromptTokens,
    64,
  );
});
