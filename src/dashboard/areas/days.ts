/** UTC day arithmetic for the dashboard's day-based views. */

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The `count` days ending with the day of `now`, oldest first. */
export function lastDays(now: number, count: number): string[] {
  const today = Date.parse(utcDay(now));
  return Array.from({ length: count }, (_, i) => utcDay(today - (count - 1 - i) * 86_400_000));
}

/** Midnight UTC of the day of `now`. */
export function startOfDay(now: number): Date {
  return new Date(Date.parse(utcDay(now)));
}
