/** The minute bucket of a time: rate-limit buckets are keyed by it in every store. */
export function minuteOf(nowMs: number): number {
  return Math.floor(nowMs / 60_000);
}
