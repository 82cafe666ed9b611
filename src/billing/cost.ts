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
import { PRICE_FIELDS, type PricedUsageField } from "../billed_quantities.ts";

/** The priced quantities of a request (`billed_quantities.ts` `PRICE_FIELDS`). */
export type PricedUsage = { [K in PricedUsageField]?: number | undefined };

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

/** A price per million units is scaled by the hour, a price per hour by the million. */
const SCALE = { million: 3_600, hour: 1_000_000 } as const;
const BIG_SCALE = { million: HOUR, hour: MILLION } as const;

export function costMicroEur(pricing: Pricing, used: PricedUsage): number {
  // Terms are ≥ 0 and rounding is monotonic: a true product or sum above the limit cannot
  // come out at or below it, so a sum at or below it is exact.
  let numerator = 0;
  for (const c of PRICE_FIELDS) {
    numerator += whole(used[c.usage]) * whole(pricing[c.price]) * SCALE[c.per];
  }
  if (!(numerator <= NUMBER_LIMIT)) return bigCost(pricing, used);
  // The sum is a multiple of 400 (the gcd of 3,600 and 10⁶): its quotient is a whole number or
  // at least 1.1 × 10⁻⁷ away from one, and the division's rounding is below 2 × 10⁻¹⁰ here.
  return Math.ceil(numerator / DENOMINATOR_NUMBER);
}

function bigCost(pricing: Pricing, used: PricedUsage): number {
  let numerator = 0n;
  for (const c of PRICE_FIELDS) {
    numerator += big(used[c.usage]) * big(pricing[c.price]) * BIG_SCALE[c.per];
  }
  const cost = (numerator + DENOMINATOR - 1n) / DENOMINATOR;
  return Number(cost);
}
