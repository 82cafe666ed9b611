/**
 * A key budget's periods, on UTC boundaries: `day` from 00:00 UTC, `week` from Monday 00:00 UTC
 * (ISO weeks), `month` from the 1st 00:00 UTC, `total` never resets. A period's id names its
 * spend counter in the store (`d:2026-12-02`, `w:2026-11-30`, `m:2026-12`, `t`); the store's
 * settle computes the same ids from a request's `created` time, so a request counts in the period
 * it started in.
 */
export const BUDGET_PERIODS = ["day", "week", "month", "total"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export interface PeriodWindow {
  id: string;
  /** Epoch ms of the period's start (0 for `total`). */
  start: number;
  /** Epoch ms when the next period starts; null for `total`. */
  resetsAt: number | null;
}

const DAY_MS = 86_400_000;

/**
 * Every period's window for the UTC day `day` (days since the epoch). The windows depend only on
 * the day, and every settle asks for all four of one day (and the gate for one): the last day's
 * are kept, frozen, so a request pays no `Date` work for them (it was ~8 µs of a request's CPU).
 */
type DayWindows = Readonly<Record<BudgetPeriod, Readonly<PeriodWindow>>>;
let lastDay: { day: number; windows: DayWindows; ids: readonly string[] } | undefined;

function windowsOf(day: number): { windows: DayWindows; ids: readonly string[] } {
  if (lastDay?.day === day) return lastDay;
  const midnight = day * DAY_MS;
  const d = new Date(midnight);
  const monday = midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS;
  const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  const windows: DayWindows = Object.freeze({
    day: Object.freeze({ id: `d:${iso(midnight)}`, start: midnight, resetsAt: midnight + DAY_MS }),
    week: Object.freeze({ id: `w:${iso(monday)}`, start: monday, resetsAt: monday + 7 * DAY_MS }),
    month: Object.freeze({ id: `m:${iso(first).slice(0, 7)}`, start: first, resetsAt: next }),
    total: Object.freeze({ id: "t", start: 0, resetsAt: null }),
  });
  const ids = Object.freeze(BUDGET_PERIODS.map((p) => windows[p].id));
  lastDay = { day, windows, ids };
  return lastDay;
}

/** The window of `period` that the instant `now` (epoch ms) falls in. */
export function budgetWindow(period: BudgetPeriod, now: number): Readonly<PeriodWindow> {
  return windowsOf(dayOf(now)).windows[period];
}

/** The ids of every period a request started at `created` (ISO time) counts in. */
export function budgetPeriodIds(created: string): readonly string[] {
  return windowsOf(dayOf(Date.parse(created))).ids;
}

/** Days since the epoch; a time that is no date (NaN) throws, as `toISOString` did. */
function dayOf(ms: number): number {
  if (!Number.isFinite(ms)) throw new RangeError(`Not a time: ${ms}`);
  return Math.floor(ms / DAY_MS);
}

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The tally's and the shared table's name of a key's budget (apart from its rate name). */
export const budgetName = (keyId: string): string => `budget:${keyId}`;

/**
 * The oldest period id of each kind still kept at `now`: the current and the previous period (a
 * request started in the previous one may still be settling). Ids of a kind that sort before it
 * are past and may be deleted; `total` is never past.
 */
export function keptBudgetPeriods(now: number): { day: string; week: string; month: string } {
  const month = budgetWindow("month", now);
  return {
    day: budgetWindow("day", now - DAY_MS).id,
    week: budgetWindow("week", now - 7 * DAY_MS).id,
    month: budgetWindow("month", month.start - 1).id,
  };
}

/** Whether a period id names a period older than `keptBudgetPeriods(now)` keeps. */
export function budgetPeriodPast(id: string, now: number): boolean {
  const kept = keptBudgetPeriods(now);
  if (id.startsWith("d:")) return id < kept.day;
  if (id.startsWith("w:")) return id < kept.week;
  if (id.startsWith("m:")) return id < kept.month;
  return false;
}
