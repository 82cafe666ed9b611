/**
 * The hot path on PostgreSQL: the gate's one statement (two rate buckets + the balance) and the
 * group-committed writes (`pg_commit.ts`: rate increments with admission records, and settles,
 * sums merged per batch).
 */
import type { Db } from "./connect.ts";
import type { PgCommitter } from "./pg_commit.ts";
import type { MeteringStore } from "../store.ts";

export function pgMeteringStore(sql: Db, writer: PgCommitter): MeteringStore {
  return {
    async readGate(keyId, orgId, minute, budgetPeriodId) {
      const [row] = await sql<
        { current: bigint; previous: bigint; balance: bigint; key_spent: bigint }[]
      >`
        select
          coalesce((select requests from sovra_rate_buckets
            where minute = ${minute} and key_id = ${keyId}), 0) as current,
          coalesce((select requests from sovra_rate_buckets
            where minute = ${minute - 1} and key_id = ${keyId}), 0) as previous,
          coalesce((select granted_micro_eur - spent_micro_eur from sovra_credits
            where org_id = ${orgId}), 0) as balance,
          coalesce((select spent_micro_eur from sovra_key_spend
            where key_id = ${keyId} and period = ${budgetPeriodId ?? ""}), 0) as key_spent`;
      return {
        rateCurrent: Number(row!.current),
        ratePrevious: Number(row!.previous),
        balanceMicroEur: BigInt(row!.balance),
        keySpentMicroEur: BigInt(row!.key_spent),
      };
    },
    async readKeySpend(keyId, budgetPeriodId) {
      const [row] = await sql<{ spent: bigint }[]>`
        select coalesce((select spent_micro_eur from sovra_key_spend
          where key_id = ${keyId} and period = ${budgetPeriodId}), 0) as spent`;
      return BigInt(row!.spent);
    },
    countRequest(keyId, minute, onSent, admission, deferrable = false) {
      // The admission record rides in the rate increment's statement: no extra round trip.
      return writer.write({
        kind: "rate",
        rate: { minute, keyId, count: 1 },
        ...(admission ? { admission } : {}),
        ...(deferrable ? { deferrable } : {}),
      }, onSent);
    },
    checkpointAdmission(admission) {
      return writer.write({ kind: "progress", admission });
    },
    hurryWrites() {
      writer.hurry();
    },
    settle(record, onSent) {
      return writer.write({ kind: "settle", record }, onSent);
    },
    settleAdmitted(record, onSent) {
      const written = writer.settleAdmitted(record, onSent);
      return written && { written, answerable: written };
    },
  };
}
