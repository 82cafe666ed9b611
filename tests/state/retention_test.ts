import assert from "node:assert/strict";
import { createKvStore } from "../../src/state/kv/kv_store.ts";
import { runRetentionCleanup } from "../../src/state/retention.ts";
import { buildRequestRecord } from "../../src/billing/settle.ts";
import { timeOrderedId } from "../../src/util/ids.ts";
import { kvKeys } from "../../src/state/kv/kv_keys.ts";
import { minuteOf } from "../../src/state/minute.ts";

Deno.test("runRetentionCleanup — deletes metadata past retention and old rate buckets, keeps the rest", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = createKvStore(kv);
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);
  await store.createOrg({ id: "org_a", name: "A", created: new Date(now).toISOString() }, 10n);
  const record = (ageDays: number) => {
    const at = now - ageDays * 86_400_000;
    return buildRequestRecord({
      id: timeOrderedId("req_", at),
      startedAt: at,
      org: "org_a",
      keyId: "key_a",
      user: undefined,
      endpoint: "chat",
      requestedModel: "acme/chat",
      model: undefined,
      servedModel: undefined,
      provider: undefined,
      status: 200,
      stream: false,
      fallbacks: 0,
      estimated: false,
    }, at);
  };
  const old = record(31);
  const recent = record(29);
  await store.settle(old);
  await store.settle(recent);
  await store.countRequest("key_a", minuteOf(now) - 10);
  await store.countRequest("key_a", minuteOf(now));
  const deleted = await runRetentionCleanup(store, 30, now);
  assert.deepEqual(deleted, { requests: 1, rateBuckets: 1 });
  assert.deepEqual((await store.listRequests("org_a", 10)).map((r) => r.id), [recent.id]);
  assert.notEqual((await kv.get(kvKeys.rate(minuteOf(now), "key_a"))).value, null);
  await store.close();
});

Deno.test("runRetentionCleanup — a key's spend in budget periods that are over goes; the current and previous stay", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = createKvStore(kv);
  const now = Date.UTC(2026, 10, 21, 12, 0, 0); // a Saturday
  const periods = {
    "d:2026-11-19": false,
    "d:2026-11-20": true,
    "d:2026-11-21": true,
    "w:2026-11-02": false,
    "w:2026-11-09": true,
    "w:2026-11-16": true,
    "m:2026-09": false,
    "m:2026-10": true,
    "m:2026-11": true,
    "t": true,
  };
  for (const period of Object.keys(periods)) {
    await kv.set(kvKeys.keySpend("key_a", period), new Deno.KvU64(5n));
  }
  await runRetentionCleanup(store, 30, now);
  const left: Record<string, boolean> = {};
  for (const period of Object.keys(periods)) {
    left[period] = (await kv.get(kvKeys.keySpend("key_a", period))).value !== null;
  }
  assert.deepEqual(left, periods);
  await store.close();
});
