/** Request metadata and daily usage of an organization, as the admin CLI and dashboard read them. */
import type { OrgStore, RequestLogStore } from "../state/store.ts";
import type { RequestRecord } from "../state/records.ts";
import { type DailyTotals, zeroUsage } from "../state/account_records.ts";
import { AccountError } from "./account_error.ts";
import { requireOrganization } from "./orgs.ts";

export const MAX_REQUESTS_LISTED = 1000;

/** Every daily aggregate (0 when nothing was counted), and any the store adds. */
export type DailyUsage = DailyTotals & Record<string, number>;

/** The newest request rows first, at most `limit` (1 … 1000). */
export async function recentRequests(
  store: OrgStore & RequestLogStore,
  orgId: string,
  limit: number,
): Promise<RequestRecord[]> {
  await requireOrganization(store, orgId);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_REQUESTS_LISTED) {
    throw new AccountError("invalid", `The limit must be between 1 and ${MAX_REQUESTS_LISTED}.`);
  }
  return await store.listRequests(orgId, limit);
}

/** One UTC day's aggregates (`day` as YYYY-MM-DD). */
export async function dailyUsage(
  store: OrgStore & RequestLogStore,
  orgId: string,
  day: string,
): Promise<DailyUsage> {
  await requireOrganization(store, orgId);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) {
    throw new AccountError("invalid", `The day must be a date as YYYY-MM-DD, got '${day}'.`);
  }
  return { ...zeroUsage(), ...(await store.dailyUsage(orgId, day)) };
}
