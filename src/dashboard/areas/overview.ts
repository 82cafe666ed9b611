/** The overview: balance, spend today and this month, requests and error rate today, 30 days. */
import type { DashboardDeps, OrgAccess } from "../deps.ts";
import { lastDays, startOfDay, utcDay } from "./days.ts";

/** Rows scanned to count today's errors (the aggregates count requests, not failures). */
const ERROR_SCAN_LIMIT = 20_000;

export interface Overview {
  org: { id: string; name: string };
  balance_micro_eur: number;
  spend_today_micro_eur: number;
  spend_month_micro_eur: number;
  requests_today: number;
  errors_today: number;
  /** errors ÷ requests today, 0 when there were none. */
  error_rate_today: number;
  low_balance_micro_eur: number | null;
  low_balance: boolean;
  daily_cost: Array<{ day: string; cost_micro_eur: number; requests: number }>;
}

export async function overview(deps: DashboardDeps, access: OrgAccess): Promise<Overview> {
  const now = deps.now();
  const org = (await deps.store.getOrg(access.org.id)) ?? access.org;
  const days = lastDays(now, 31);
  const today = utcDay(now);
  const monthStart = `${today.slice(0, 8)}01`;
  const usage = await deps.control.usageDays(
    org.id,
    monthStart < days[0]! ? monthStart : days[0]!,
    today,
  );
  const byDay = new Map(usage.map((u) => [u.day, u]));
  const todayRows = await deps.control.requestsBetween(
    org.id,
    startOfDay(now),
    new Date(now + 60_000),
    ERROR_SCAN_LIMIT,
  );
  // A merged refusal row (a 429 flood) stands for `refused_count` requests.
  const requestsIn = (rows: typeof todayRows) =>
    rows.reduce((n, r) => n + (r.refused_count ?? 1), 0);
  const requestsToday = Math.max(byDay.get(today)?.requests ?? 0, requestsIn(todayRows));
  const errorsToday = requestsIn(todayRows.filter((r) => r.status >= 400));
  const settings = await deps.control.getOrgSettings(org.id);
  return {
    org: { id: org.id, name: org.name },
    balance_micro_eur: org.balance_micro_eur,
    spend_today_micro_eur: byDay.get(today)?.cost_micro_eur ?? 0,
    spend_month_micro_eur: usage.filter((u) => u.day >= monthStart)
      .reduce((sum, u) => sum + u.cost_micro_eur, 0),
    requests_today: requestsToday,
    errors_today: errorsToday,
    error_rate_today: requestsToday === 0 ? 0 : errorsToday / requestsToday,
    low_balance_micro_eur: settings.low_balance_micro_eur,
    low_balance: settings.low_balance_micro_eur !== null &&
      org.balance_micro_eur < settings.low_balance_micro_eur,
    daily_cost: days.slice(1).map((day) => ({
      day,
      cost_micro_eur: byDay.get(day)?.cost_micro_eur ?? 0,
      requests: byDay.get(day)?.requests ?? 0,
    })),
  };
}
