/** Request metadata and daily aggregates on Deno KV: listing, usage and retention. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import { u64 } from "./kv_values.ts";
import type { RequestLogStore } from "../store.ts";
import type { OrgRecord, RequestRecord } from "../records.ts";
import { timeOrderedIdFloor } from "../../ids.ts";

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
      let requests = 0;
      for await (const org of kv.list<OrgRecord>({ prefix: kvKeys.orgPrefix() })) {
        requests += await deleteRange({
          start: kvKeys.requestPrefix(org.value.id),
          end: kvKeys.request(org.value.id, timeOrderedIdFloor("req_", before.getTime())),
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
