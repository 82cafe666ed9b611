/**
 * Whole amounts (micro-EUR, counts) kept as a number while that is exact — a safe integer —
 * and as a bigint beyond: the hot path's usual amounts make no bigint, and a sum past 2^53
 * (a hold of a huge `max_tokens`) is still exact, so holds and tallies add up and release to
 * exactly what they were (a rounded sum would leave credit behind, or make it appear).
 */
export type Whole = number | bigint;

/** `n` as a `Whole`: a number when it is a safe integer, else a bigint (a non-integer throws). */
export function whole(n: bigint | number): Whole {
  if (typeof n === "number") return Number.isSafeInteger(n) ? n : BigInt(n);
  return n >= -MAX && n <= MAX ? Number(n) : n;
}

/** `a + b`, exactly. */
export function addWhole(a: Whole, b: Whole): Whole {
  if (typeof a === "number" && typeof b === "number") {
    // Both safe: a sum within the safe range is exact (rounding is monotonic, so a true sum
    // beyond it cannot come out inside it).
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return whole(BigInt(a) + BigInt(b));
}

/** `a - b`, exactly. */
export function subtractWhole(a: Whole, b: Whole): Whole {
  if (typeof a === "number" && typeof b === "number") {
    const difference = a - b;
    if (Number.isSafeInteger(difference)) return difference;
  }
  return whole(BigInt(a) - BigInt(b));
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
