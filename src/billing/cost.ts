/**
 * Cost in integer micro-EUR, computed exactly: all parts are summed as one fraction over
 * 3.6 × 10⁹ (per-million prices × per-hour prices), and only the request's total is rounded,
 * up to the next whole micro-EUR. A request that used nothing costs 0.
 */
import type { Pricing } from "../catalog/schema.ts";

export interface Consumption {
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
  audioSeconds?: number | undefined;
  characters?: number | undefined;
}

const MILLION = 1_000_000n;
const HOUR = 3_600n;
const DENOMINATOR = MILLION * HOUR;

function big(n: number | undefined): bigint {
  return n === undefined ? 0n : BigInt(Math.max(0, Math.trunc(n)));
}

export function costMicroEur(pricing: Pricing, used: Consumption): number {
  const numerator = big(used.promptTokens) * big(pricing.prompt_micro_eur_per_million) * HOUR +
    big(used.completionTokens) * big(pricing.completion_micro_eur_per_million) * HOUR +
    big(used.audioSeconds) * big(pricing.audio_micro_eur_per_hour) * MILLION +
    big(used.characters) * big(pricing.character_micro_eur_per_million) * HOUR;
  const cost = (numerator + DENOMINATOR - 1n) / DENOMINATOR;
  return Number(cost);
}
