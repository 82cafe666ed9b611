/** Request metadata and daily aggregates on Deno KV: listing, usage and retention. */
import { budgetPeriodPast } from "../../util/budget_period.ts";
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import { u64 } from "./kv_values.ts";
import type { RequestLogStore } from "../store.ts";
import type { AdmissionRecord, AdmissionRow, OrgRecord, RequestRecord } from "../records.ts";
import { timeOrderedIdFloor } from "../../util/ids.ts";
import { recordsOf } from "./admissions.ts";

/**
 * The request records that open admission rows list, as `org\u0000id`: recovery reads them to
 * tell a listed request that was settled from one that was not, so retention keeps them until
 * their row closes. Only them: a row left open for good (a settle that failed) must not hold
 * back every newer request record.
 */
async function listedRequests(kv: Deno.Kv): Promise<Set<string>> {
  const listed = new Set<string>();
  const entries = kv.list<AdmissionRow | AdmissionRecord>({ prefix: kvKeys.admissionPrefix() });
  for await (const entry of entries) {
    for (const record of recordsOf(entry.value)) listed.add(`${record.org}\u0000${record.id}`);
  }
  return listed;
}

export function kvRequestLogStore(kv: Deno.Kv): RequestLogStore {
  const deleteRange = async (
    selector: { start: Deno.KvKey; end: Deno.KvKey },
    keep: (key: Deno.KvKey) => boolean = () => false,
  ) => {
    let deleted = 0;
    let batch: Deno.KvKey[] = [];
    const flush = async () => {
      const op = kv.atomic();
      for (const key of batch) op.delete(key);
      await withLockRetry(() => op.commit());
      deleted += batch.length;
      batch = [];
    };
    for await (const entry of kv.list(selector)) {
      if (keep(entry.key)) continue;
      batch.push(entry.key);
      if (batch.length === 500) await flush();
    }
    if (batch.length > 0) await flush();
    return deleted;
  };
  return {
    async listRequests(orgId, limit) {
      const out: RequestRecord[] = [];
      const iter = kv.list<RequestRecord>({ prefix: kvKeys.requestPrefix(orgId) }, {
        reverse: true,
        limit,
      });
      for await (const entry of iter) out.push(entry.value);
      return out;
    },
    async dailyUsage(orgId, day) {
      const out: Record<string, number> = {};
      for await (const entry of kv.list({ prefix: kvKeys.usageDayPrefix(orgId, day) })) {
        out[entry.key[3] as string] = Number(u64(entry));
      }
      return out;
    },
    async cleanup(before, beforeMinute) {
      // A request record is what tells recovery that a request listed in an open admission
      // row was settled: none that a row lists goes.
      const listed = await listedRequests(kv);
      const keep = (key: Deno.KvKey) => listed.has(`${String(key[1])}\u0000${String(key[2])}`);
      let requests = 0;
      for await (const org of kv.list<OrgRecord>({ prefix: kvKeys.orgPrefix() })) {
        requests += await deleteRange({
          start: kvKeys.requestPrefix(org.value.id),
          end: kvKeys.request(org.value.id, timeOrderedIdFloor("req_", before.getTime())),
        }, keep);
      }
      const rateBuckets = await deleteRange({
        start: kvKeys.ratePrefix(),
        end: kvKeys.rate(beforeMinute, ""),
      });
      // Keys' spend in budget periods that are over (the gate reads only the current one).
      const now = beforeMinute * 60_000;
      for await (const entry of kv.list({ prefix: kvKeys.keySpendPrefix() })) {
        if (budgetPeriodPast(String(entry.key[2]), now)) await kv.delete(entry.key);
      }
      return { requests, rateBuckets };
    },
  };
}
