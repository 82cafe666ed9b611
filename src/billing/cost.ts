/**
 * Cost in integer micro-EUR, computed exactly: all parts are summed as one fraction over
 * 3.6 × 10⁹ (per-million prices × per-hour prices), and only the request's total is rounded,
 * up to the next whole micro-EUR. A request that used nothing costs 0.
 *
 * The sum is worked out with numbers when it stays at most 2^52 (every product and the sum are
 * then exact integers): no bigint is made for a request's usual few thousand tokens. A larger or non-finite sum is worked out with bigints,
 * as before (which also keeps their errors: `BigInt` refuses NaN and Infinity).
 */
import type { Pricing } from "../catalog/schema.ts";

export interface PricedUsage {
  promptTokens?: number | undefined;
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

export function costMicroEur(pricing: Pricing, used: PricedUsage): number {
  // Terms are ≥ 0 and rounding is monotonic: a true product or sum above the limit cannot
  // come out at or below it, so a sum at or below it is exact.
  const numerator = whole(used.promptTokens) * whole(pricing.prompt_micro_eur_per_million) * 3_600 +
    whole(used.completionTokens) * whole(pricing.completion_micro_eur_per_million) * 3_600 +
    whole(used.audioSeconds) * whole(pricing.audio_micro_eur_per_hour) * 1_000_000 +
    whole(used.characters) * whole(pricing.character_micro_eur_per_million) * 3_600;
  if (!(numerator <= NUMBER_LIMIT)) return bigCost(pricing, used);
  // The sum is a multiple of 400 (the gcd of 3,600 and 10⁶): its quotient is a whole number or
  // at least 1.1 × 10⁻⁷ away from one, and the division's rounding is below 2 × 10⁻¹⁰ here.
  return Math.ceil(numerator / DENOMINATOR_NUMBER);
}

function bigCost(pricing: Pricing, used: PricedUsage): number {
  const numerator = big(used.promptTokens) * big(pricing.prompt_micro_eur_per_million) * HOUR +
    big(used.completionTokens) * big(pricing.completion_micro_eur_per_million) * HOUR +
    big(used.audioSeconds) * big(pricing.audio_micro_eur_per_hour) * MILLION +
    big(used.characters) * big(pricing.character_micro_eur_per_million) * HOUR;
  const cost = (numerator + DENOMINATOR - 1n) / DENOMINATOR;
  return Number(cost);
}
