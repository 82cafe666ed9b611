/**
 * Cost in integer micro-EUR, computed exactly: all parts are summed as one fraction over
 * 3.6 × 10⁹ (per-million prices × per-hour prices), and only the request's total is rounded,
 * up to the next whole micro-EUR. A request that used nothing costs 0.
 *
 * The sum is worked out with numbers when it stays at most 2^52 (every product and the sum are
 * then exact integers): no bigint is made for a request's usual few thousand tokens. A larger or non-finite sum is worked out with bigints,
 * as before (which also keeps their errors: `BigInt` refuses NaN and Infinity).
 *
 * Prompt tokens come in disjoint classes, each at its own price, none counted twice:
 * `promptTokens` counts them all (as OpenAI's `prompt_tokens` does); of those, cache reads
 * (`cachedPromptTokens`) and cache writes (`cacheWritePromptTokens`, of which the 1-hour ones are
 * `cacheWrite1hPromptTokens`) are priced at the cache prices, and only the rest at the prompt
 * price. A class the catalog prices not is billed at the prompt price; counts a provider reports
 * beyond the prompt are capped by it (a read or write is always part of the prompt).
 */
import type { Pricing } from "../catalog/schema.ts";

export interface PricedUsage {
  /** Every prompt token, cache reads and writes included. */
  promptTokens?: number | undefined;
  /** Of `promptTokens`: read from the provider's cache. */
  cachedPromptTokens?: number | undefined;
  /** Of `promptTokens`: written to the provider's cache (every TTL). */
  cacheWritePromptTokens?: number | undefined;
  /** Of `cacheWritePromptTokens`: written with the 1-hour TTL. */
  cacheWrite1hPromptTokens?: number | undefined;
  completionTokens?: number | undefined;
  audioSeconds?: number | undefined;
  characters?: number | undefined;
}

const MILLION = 1_000_000n;
const HOUR = 3_600n;
const DENOMINATOR = MILLION * HOUR;
const DENOMINATOR_NUMBER = 3_600_000_000;
/** Integers up to here are exact as numbers, with room to spare. */
const NUMBER_LIMIT = 2 ** 52;

function whole(n: number | undefined): number {
  return n === undefined ? 0 : Math.max(0, Math.trunc(n));
}

function big(n: number | undefined): bigint {
  return n === undefined ? 0n : BigInt(Math.max(0, Math.trunc(n)));
}

/** The prompt's token classes, disjoint and summing to the prompt (see the module comment). */
export interface PromptClasses {
  uncached: number;
  cached: number;
  write5m: number;
  write1h: number;
}

export function promptClasses(used: PricedUsage): PromptClasses {
  const prompt = whole(used.promptTokens);
  const cached = Math.min(whole(used.cachedPromptTokens), prompt);
  const writes = Math.min(whole(used.cacheWritePromptTokens), prompt - cached);
  const write1h = Math.min(whole(used.cacheWrite1hPromptTokens), writes);
  return { uncached: prompt - cached - writes, cached, write5m: writes - write1h, write1h };
}

/** The price of each prompt class, micro-EUR per million (a class without one: the prompt's). */
function classPrices(pricing: Pricing) {
  const prompt = whole(pricing.prompt_micro_eur_per_million);
  const write5m = pricing.cache_write_micro_eur_per_million ?? prompt;
  return {
    uncached: prompt,
    cached: pricing.cached_prompt_micro_eur_per_million ?? prompt,
    write5m,
    write1h: pricing.cache_write_1h_micro_eur_per_million ?? write5m,
  };
}

export function costMicroEur(pricing: Pricing, used: PricedUsage): number {
  const c = promptClasses(used);
  const p = classPrices(pricing);
  // Terms are ≥ 0 and rounding is monotonic: a true product or sum above the limit cannot
  // come out at or below it, so a sum at or below it is exact.
  const numerator = (c.uncached * p.uncached + c.cached * p.cached + c.write5m * p.write5m +
        c.write1h * p.write1h) * 3_600 +
    whole(used.completionTokens) * whole(pricing.completion_micro_eur_per_million) * 3_600 +
    whole(used.audioSeconds) * whole(pricing.audio_micro_eur_per_hour) * 1_000_000 +
    whole(used.characters) * whole(pricing.character_micro_eur_per_million) * 3_600;
  if (!(numerator <= NUMBER_LIMIT)) return bigCost(pricing, used, c, p);
  // The sum is a multiple of 400 (the gcd of 3,600 and 10⁶): its quotient is a whole number or
  // at least 1.1 × 10⁻⁷ away from one, and the division's rounding is below 2 × 10⁻¹⁰ here.
  return Math.ceil(numerator / DENOMINATOR_NUMBER);
}

function bigCost(
  pricing: Pricing,
  used: PricedUsage,
  c: PromptClasses,
  p: ReturnType<typeof classPrices>,
): number {
  const prompt = BigInt(c.uncached) * big(p.uncached) + BigInt(c.cached) * big(p.cached) +
    BigInt(c.write5m) * big(p.write5m) + BigInt(c.write1h) * big(p.write1h);
  const numerator = prompt * HOUR +
    big(used.completionTokens) * big(pricing.completion_micro_eur_per_million) * HOUR +
    big(used.audioSeconds) * big(pricing.audio_micro_eur_per_hour) * MILLION +
    big(used.characters) * big(pricing.character_micro_eur_per_million) * HOUR;
  const cost = (numerator + DENOMINATOR - 1n) / DENOMINATOR;
  return Number(cost);
}

/**
 * What the provider's prompt cache changed on this bill: the cost with every prompt token at
 * the prompt price, less the cost billed (negative when cache writes, dearer than input, were
 * not yet read back). 0 when no cache class was reported.
 */
export function cacheSavingsMicroEur(pricing: Pricing, used: PricedUsage): number {
  if (!used.cachedPromptTokens && !used.cacheWritePromptTokens) return 0;
  const list = costMicroEur(pricing, {
    promptTokens: used.promptTokens,
    completionTokens: used.completionTokens,
    audioSeconds: used.audioSeconds,
    characters: used.characters,
  });
  return list - costMicroEur(pricing, used);
}
