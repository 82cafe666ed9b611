/**
 * The cost-quality dial. Threshold T (1–10) and difficulty d (0–1, uniform on reference
 * traffic) give a position s on the pool's quality range, by multiplying odds:
 *
 *   u = (T − 1) / 9,   s = d·u / (d·u + (1 − d)(1 − u))
 *
 * T = 1 gives s = 0 (the cheapest eligible model) for every request, T = 10 gives s = 1 (the
 * strongest); s rises with d and with T (monotone by construction); a no-signal request
 * (d = 0.5) sits at s = u. On reference traffic, the share with s ≥ 1/2 is exactly u: each step
 * moves 1/9 of the traffic across the middle of the pool.
 *
 * The needed quality is R = q_lo + s·(q_hi − q_lo) over the pool's Pareto frontier; the model
 * picked is the frontier model nearest to R in quality (ties upward), i.e. the cheapest one
 * whose quality reaches the midpoint below R's neighbour.
 */
export const DEFAULT_THRESHOLD = 5;

export function dialPosition(difficulty: number, threshold: number): number {
  const u = (Math.min(10, Math.max(1, threshold)) - 1) / 9;
  const d = Math.min(1, Math.max(0, difficulty));
  if (u === 0) return 0;
  if (u === 1) return 1;
  const a = d * u;
  const b = (1 - d) * (1 - u);
  return a + b === 0 ? 0.5 : a / (a + b);
}

export function neededQuality(s: number, qLow: number, qHigh: number): number {
  return qLow + s * (qHigh - qLow);
}

/**
 * Index into `qualities` (ascending) of the tier for needed quality `r`: the first tier whose
 * upper midpoint reaches r. Monotone in r.
 */
export function tierFor(qualities: readonly number[], r: number): number {
  for (let i = 0; i < qualities.length - 1; i++) {
    // `r <= q[i]` too: for neighbouring doubles the midpoint rounds to q[i] itself.
    if (r < (qualities[i]! + qualities[i + 1]!) / 2 || r <= qualities[i]!) return i;
  }
  return qualities.length - 1;
}
