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

export function budgetWindow(period: BudgetPeriod, now: number): PeriodWindow {
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  switch (period) {
    case "day":
      return { id: `d:${iso(midnight)}`, start: midnight, resetsAt: midnight + DAY_MS };
    case "week": {
      const monday = midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS;
      return { id: `w:${iso(monday)}`, start: monday, resetsAt: monday + 7 * DAY_MS };
    }
    case "month": {
      const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      return { id: `m:${iso(first).slice(0, 7)}`, start: first, resetsAt: next };
    }
    case "total":
      return { id: "t", start: 0, resetsAt: null };
  }
}

/** The ids of every period a request started at `created` (ISO time) counts in. */
export function budgetPeriodIds(created: string): string[] {
  const at = Date.parse(created);
  return BUDGET_PERIODS.map((p) => budgetWindow(p, at).id);
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
