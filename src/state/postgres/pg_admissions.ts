/**
 * Admission records and instance leases on PostgreSQL (`../admission_store.ts`). The records
 * are written and deleted by the group committer's statement (`settle_sql.ts`); here leases are
 * renewed and a dead instance's admissions settled: one transaction deletes them (row locks:
 * a second instance recovering at the same time finds them gone) and writes their records
 * through the same idempotent batch write as every settle (a request id already present is
 * skipped), so each is billed once.
 */
import type { Db } from "./connect.ts";
import type { AdmissionStore } from "../admission_store.ts";
import type { RequestRecord } from "../records.ts";
import { onLiveConnection, writeBatch } from "./settle_sql.ts";

/** How long after its end a lease row is kept (like the KV lease key's grace). */
const LEASE_KEPT_MS = 10 * 60_000;

export function pgAdmissionStore(sql: Db): AdmissionStore {
  return {
    async renewLease(instance, expiresAt) {
      // A dead pooled connection (after a restart) must not fail the renewal: the next one.
      await onLiveConnection(() =>
        sql`
        insert into sovra_instances (id, lease_until_ms) values (${instance}, ${expiresAt})
        on conflict (id) do update set lease_until_ms = excluded.lease_until_ms`
      );
    },
    async recoverAdmissions(self, now) {
      return await sql.begin(async (tx) => {
        // A lease long ended has no admissions left (settled below, or in an earlier pass): its
        // row goes, so the table does not keep a row for every process ever started.
        await tx`
          delete from sovra_instances i
          where i.lease_until_ms < ${now - LEASE_KEPT_MS} and i.id <> ${self}
            and not exists (select 1 from sovra_admissions a where a.instance = i.id)`;
        const rows = await tx<{ record: RequestRecord }[]>`
          delete from sovra_admissions a
          where a.instance <> ${self} and not exists (
            select 1 from sovra_instances i
            where i.id = a.instance and i.lease_until_ms >= ${now})
          returning record`;
        if (rows.length === 0) return 0;
        await writeBatch(tx as unknown as Db, rows.map((r) => r.record), []);
        return rows.length;
      });
    },
  };
}
