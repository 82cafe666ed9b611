/** Latency percentiles over recorded samples (milliseconds). */

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** Nearest-rank percentile of an ascending-sorted array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  // The epsilon keeps float noise (99.9 / 100 × 1000 = 999.0000000000001) off the next rank.
  const rank = Math.ceil((p / 100) * sorted.length - 1e-9);
  const index = Math.min(Math.max(rank, 1), sorted.length) - 1;
  return sorted[index] ?? NaN;
}

export function summarise(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length === 0 ? NaN : sorted[sorted.length - 1] ?? NaN,
  };
}
