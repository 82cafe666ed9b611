/**
 * Admission records and instance leases on Deno KV (`../admission_store.ts`). The records
 * themselves are written by the hot path (`metering.ts`: with the rate increment, one row per
 * group commit, deleted with the settle of its last request, `admission_rows.ts`); this area
 * renews leases and settles what a dead instance left: each row in its own atomic guarded by
 * its versionstamp and by the absence of the request record of each request it bills (a
 * listed request with a request record was settled), so two processes recovering at once bill
 * each request once.
 */
import type { AdmissionStore } from "../admission_store.ts";
import type { AdmissionRecord, AdmissionRow, RequestRecord } from "../records.ts";
import { kvKeys } from "./kv_keys.ts";
import { settleMutations } from "./metering.ts";

/** KV reads at most 10 keys per `getMany`. */
const GET_MANY = 10;

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
      const entries = kv.list<AdmissionRow | AdmissionRecord>({
        prefix: kvKeys.admissionPrefix(),
      });
      for await (const entry of entries) {
        const { instance } = entry.value;
        if (instance === self || (leases.get(instance) ?? -Infinity) >= now) continue;
        const unsettled = await unsettledOf(kv, recordsOf(entry.value));
        const op = kv.atomic().check(entry).delete(entry.key);
        // A long stream's latest checkpoint replaces its admission estimate.
        const progress = await progressOf(kv, unsettled);
        for (let i = 0; i < unsettled.length; i++) {
          const latest = progress[i];
          if (latest) {
            op.delete(kvKeys.admissionProgress(latest.id));
            unsettled[i] = latest;
          }
        }
        for (const record of unsettled) {
          op.check({ key: kvKeys.request(record.org, record.id), versionstamp: null });
          for (const m of settleMutations(record)) {
            if (m.type === "sum") op.sum(m.key, m.value);
            else if (m.type === "set") op.set(m.key, m.value);
          }
        }
        if ((await op.commit()).ok) settled += unsettled.length;
      }
      return settled;
    },
  };
}

/** The records of a row, or of a single record (written before rows). */
export function recordsOf(value: AdmissionRow | AdmissionRecord): RequestRecord[] {
  return "records" in value ? value.records : [value.record];
}

/** Each request's latest checkpoint (`MeteringStore.checkpointAdmission`), if any. */
async function progressOf(
  kv: Deno.Kv,
  records: RequestRecord[],
): Promise<Array<RequestRecord | undefined>> {
  const found: Array<RequestRecord | undefined> = [];
  for (let i = 0; i < records.length; i += GET_MANY) {
    const part = records.slice(i, i + GET_MANY);
    const rows = await kv.getMany<AdmissionRecord[]>(
      part.map((r) => kvKeys.admissionProgress(r.id)),
    );
    for (const row of rows) found.push(row.value?.record);
  }
  return found;
}

/** The listed requests that have no request record yet (not settled). */
async function unsettledOf(kv: Deno.Kv, records: RequestRecord[]): Promise<RequestRecord[]> {
  const unsettled: RequestRecord[] = [];
  for (let i = 0; i < records.length; i += GET_MANY) {
    const part = records.slice(i, i + GET_MANY);
    const rows = await kv.getMany(part.map((r) => kvKeys.request(r.org, r.id)));
    part.forEach((record, j) => {
      if (rows[j]!.versionstamp === null) unsettled.push(record);
    });
  }
  return unsettled;
}
