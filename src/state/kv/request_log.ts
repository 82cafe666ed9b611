/** Request metadata and daily aggregates on Deno KV: listing, usage and retention. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import { u64 } from "./kv_values.ts";
import type { RequestLogStore } from "../store.ts";
import type { AdmissionRecord, AdmissionRow, OrgRecord, RequestRecord } from "../records.ts";
import { timeOrderedIdFloor } from "../../ids.ts";
import { recordsOf } from "./admissions.ts";

/** The start (epoch ms) of the oldest request listed in an admission row; Infinity: none. */
async function oldestAdmitted(kv: Deno.Kv): Promise<number> {
  let oldest = Infinity;
  const entries = kv.list<AdmissionRow | AdmissionRecord>({ prefix: kvKeys.admissionPrefix() });
  for await (const entry of entries) {
    for (const record of recordsOf(entry.value)) {
      oldest = Math.min(oldest, Date.parse(record.created));
    }
  }
  return oldest;
}

export function kvRequestLogStore(kv: Deno.Kv): RequestLogStore {
  const deleteRange = async (selector: { start: Deno.KvKey; end: Deno.KvKey }) => {
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
      // row was settled: none at least as new as the oldest listed request goes.
      const cutoff = Math.min(before.getTime(), await oldestAdmitted(kv));
      let requests = 0;
      for await (const org of kv.list<OrgRecord>({ prefix: kvKeys.orgPrefix() })) {
        requests += await deleteRange({
          start: kvKeys.requestPrefix(org.value.id),
          end: kvKeys.request(org.value.id, timeOrderedIdFloor("req_", cutoff)),
        });
      }
      const rateBuckets = await deleteRange({
        start: kvKeys.ratePrefix(),
        end: kvKeys.rate(beforeMinute, ""),
      });
      return { requests, rateBuckets };
    },
  };
}
