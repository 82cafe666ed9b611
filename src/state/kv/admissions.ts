/**
 * Admission records and instance leases on Deno KV (`../admission_store.ts`). The records
 * themselves are written by the hot path (`metering.ts`: with the rate increment, deleted with
 * the settle); this area renews leases and settles what a dead instance left, each record in
 * its own atomic guarded by its versionstamp and by the absence of the request's record, so
 * two processes recovering at once bill it once.
 */
import type { AdmissionStore } from "../admission_store.ts";
import type { AdmissionRecord } from "../records.ts";
import { kvKeys } from "./kv_keys.ts";
import { settleMutations } from "./metering.ts";

/** A lease key outlives its end by this much (then KV drops it). */
const LEASE_GRACE_MS = 10 * 60_000;

export function kvAdmissionStore(kv: Deno.Kv): AdmissionStore {
  return {
    async renewLease(instance, expiresAt) {
      const expireIn = Math.max(1, expiresAt - Date.now()) + LEASE_GRACE_MS;
      await kv.set(kvKeys.instance(instance), expiresAt, { expireIn });
    },
    async recoverAdmissions(self, now) {
      const leases = new Map<string, number>();
      for await (const entry of kv.list<number>({ prefix: kvKeys.instancePrefix() })) {
        leases.set(String(entry.key[1]), entry.value);
      }
      let settled = 0;
      for await (const entry of kv.list<AdmissionRecord>({ prefix: kvKeys.admissionPrefix() })) {
        const { instance, record } = entry.value;
        if (instance === self || (leases.get(instance) ?? -Infinity) >= now) continue;
        const op = kv.atomic()
          .check(entry)
          .check({ key: kvKeys.request(record.org, record.id), versionstamp: null })
          .delete(entry.key);
        for (const m of settleMutations(record)) {
          if (m.type === "sum") op.sum(m.key, m.value);
          else if (m.type === "set") op.set(m.key, m.value);
        }
        if ((await op.commit()).ok) settled++;
      }
      return settled;
    },
  };
}
