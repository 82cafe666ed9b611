/**
 * Cost in integer micro-EUR, computed exactly: all parts are summed as one fraction over
 * 3.6 × 10⁹ (per-million prices × per-hour prices), and only the request's total is rounded,
 * up to the next whole micro-EUR. A request that used nothing costs 0.
 *
 * The sum is worked out with numbers when it stays at most 2^52 (every product and the sum are
 * then exact integers): no bigint is made for a request's usual few thousand tokens. A larger or
 * non-finite sum is worked out with bigints (which refuse NaN and Infinity: such a usage throws).
 *
 * The price classes are `billed_quantities.ts` `PRICE_FIELDS`. Prompt tokens come in disjoint
 * classes, each at its own price, none counted twice:
 * `promptTokens` counts them all (as OpenAI's `prompt_tokens` does); of those, cache reads
 * (`cachedPromptTokens`) and cache writes (`cacheWritePromptTokens`, of which the 1-hour ones are
 * `cacheWrite1hPromptTokens`) are priced at the cache prices, and only the rest at the prompt
 * price. A class the catalog prices not is billed at the prompt price; counts a provider reports
 * beyond the prompt are capped by it (a read or write is always part of the prompt).
 */
import type { Pricing } from "../catalog/schema.ts";
import { PRICE_FIELDS, type PricedUsageField, type PriceField } from "../billed_quantities.ts";

/** The priced quantities of a request (`billed_quantities.ts` `PRICE_FIELDS`). */
export type PricedUsage = { [K in PricedUsageField]?: number | undefined };

const MILLION = 1_000_000n;
const HOUR = 3_600n;
const DENOMINATOR = MILLION * HOUR;
const DENOMINATOR_NUMBER = 3_600_000_000;
/** Integers up to here are exact as numbers, with room to spare. */
const NUMBER_LIMIT = 2 ** 52;
/** Every term over one denominator: a price per million units is scaled by the hour, per hour by the million. */
const SCALE = { million: 3_600, hour: 1_000_000 } as const;
const BIG_SCALE = { million: HOUR, hour: MILLION } as const;

function whole(n: number | undefined): number {
  return n === undefined ? 0 : Math.max(0, Math.trunc(n));
}

/**
 * The units billed at each class's price, disjoint: a part (cache reads of the prompt) takes at
 * most what its whole has left, and the whole's price applies to the rest.
 */
export function billedUnits(used: PricedUsage): Record<PricedUsageField, number> {
  const units = {} as Record<PricedUsageField, number>;
  for (const c of PRICE_FIELDS) {
    let n = whole(used[c.usage]);
    if ("partOf" in c) {
      n = Math.min(n, units[c.partOf]);
      units[c.partOf] -= n;
    }
    units[c.usage] = n;
  }
  return units;
}

/** Each class's price, micro-EUR per its unit (a part without a price of its own: its fallback's). */
function classPrices(pricing: Pricing): Record<PriceField, number> {
  const prices = {} as Record<PriceField, number>;
  for (const c of PRICE_FIELDS) {
    const own = pricing[c.price];
    prices[c.price] = own !== undefined ? whole(own) : "otherwise" in c ? prices[c.otherwise] : 0;
  }
  return prices;
}

export function costMicroEur(pricing: Pricing, used: PricedUsage): number {
  const units = billedUnits(used);
  const prices = classPrices(pricing);
  // Terms are ≥ 0 and rounding is monotonic: a true product or sum above the limit cannot
  // come out at or below it, so a sum at or below it is exact.
  let numerator = 0;
  for (const c of PRICE_FIELDS) numerator += units[c.usage] * prices[c.price] * SCALE[c.per];
  if (!(numerator <= NUMBER_LIMIT)) return bigCost(units, prices);
  // The sum is a multiple of 400 (the gcd of 3,600 and 10⁶): its quotient is a whole number or
  // at least 1.1 × 10⁻⁷ away from one, and the division's rounding is below 2 × 10⁻¹⁰ here.
  return Math.ceil(numerator / DENOMINATOR_NUMBER);
}

function bigCost(
  units: Record<PricedUsageField, number>,
  prices: Record<PriceField, number>,
): number {
  let numerator = 0n;
  for (const c of PRICE_FIELDS) {
    numerator += BigInt(units[c.usage]) * BigInt(prices[c.price]) * BIG_SCALE[c.per];
  }
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
  const uncached: PricedUsage = {};
  for (const c of PRICE_FIELDS) if (!("partOf" in c)) uncached[c.usage] = used[c.usage];
  const list = costMicroEur(pricing, uncached);
  return list - costMicroEur(pricing, used);
}
