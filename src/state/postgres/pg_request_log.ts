/**
 * Request metadata and daily aggregates on PostgreSQL: listing, usage and retention. Retention
 * runs on one instance at a time (a transaction-scoped advisory lock).
 */
import { keptBudgetPeriods } from "../../util/budget_period.ts";
import type { Db } from "./connect.ts";
import type { RequestLogStore } from "../store.ts";
import type { RequestRecord } from "../records.ts";
import { DAILY_AGGREGATES } from "../account_records.ts";
import { inContractOrder } from "./record_order.ts";

/** The advisory lock id of retention cleanup ("sovra" + 2). */
const RETENTION_LOCK = 0x736f767261_02;

export function pgRequestLogStore(sql: Db): RequestLogStore {
  return {
    async listRequests(orgId, limit) {
      const rows = await sql<{ record: RequestRecord }[]>`
        select record from sovra_requests where org_id = ${orgId} order by id desc limit ${limit}`;
      return rows.map((r) => inContractOrder(r.record));
    },
    async dailyUsage(orgId, day) {
      const [row] = await sql<Record<string, bigint>[]>`
        select ${
        sql(DAILY_AGGREGATES)
      } from sovra_usage_daily where org_id = ${orgId} and day = ${day}::date`;
      const out: Record<string, number> = {};
      // As on KV, a field nothing was added to is absent.
      for (const [field, value] of Object.entries(row ?? {})) {
        if (value !== 0n) out[field] = Number(value);
      }
      return out;
    },
    /** One instance at a time: another holding the lock means this run has nothing to do. */
    async cleanup(before, beforeMinute) {
      return await sql.begin(async (tx) => {
        const [lock] = await tx<{ ok: boolean }[]>`
          select pg_try_advisory_xact_lock(${RETENTION_LOCK}::bigint) as ok`;
        if (!lock?.ok) return { requests: 0, rateBuckets: 0 };
        const requests = await tx`delete from sovra_requests where created < ${before}`;
        const buckets = await tx`delete from sovra_rate_buckets where minute < ${beforeMinute}`;
        // Expired dashboard sessions, set-password tokens, invitations and failed-login windows
        // go too.
        await tx`delete from sovra_sessions where expires < now()`;
        await tx`delete from sovra_password_tokens where expires < now()`;
        await tx`delete from sovra_invitations where expires < now()`;
        await tx`delete from sovra_login_failures where forget_after < now()`;
        // Keys' spend in budget periods that are over (the gate reads only the current one).
        const kept = keptBudgetPeriods(beforeMinute * 60_000);
        await tx`
          delete from sovra_key_spend
          where (period like 'd:%' and period < ${kept.day})
            or (period like 'w:%' and period < ${kept.week})
            or (period like 'm:%' and period < ${kept.month})`;
        return { requests: requests.count, rateBuckets: buckets.count };
      });
    },
  };
}
