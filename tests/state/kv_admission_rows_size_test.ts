/**
 * Admission rows under 1,000 concurrent requests on a Deno KV file (review of bd00659): a row
 * lists many requests, and a KV value stops at 64 KiB (`../shared/reference/deno.md`), an
 * atomic at 800 KiB. With records as large as a request can make them (256-character end-user
 * ids outside Latin-1, long catalog ids, a guardrail note), every group commit must still land
 * whole: a commit over a KV limit falls back to one commit per write (`group_commit.ts`), which
 * the commit observer does not see, so the observed writes must add up to all of them.
 */
import assert from "node:assert/strict";
import { createKvStore } from "../../src/state/kv/kv_store.ts";
import { buildRequestRecord } from "../../src/billing/settle.ts";
import type { AdmissionRow, RequestRecord } from "../../src/state/records.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { timeOrderedId } from "../../src/util/ids.ts";

const REQUESTS = 1_000;
const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);

function largeRecord(i: number): RequestRecord {
  const at = T0 + i;
  return {
    ...buildRequestRecord({
      id: timeOrderedId("req_", at),
      startedAt: at,
      org: "org_a",
      keyId: "key_a",
      user: "ü".repeat(255) + String(i % 10),
      endpoint: "chat",
      requestedModel: `router/${"r".repeat(500)}`,
      routingPolicy: "p".repeat(500),
      model: {
        pricing: { prompt_micro_eur_per_million: 1_000_000, completion_micro_eur_per_million: 0 },
      } as never,
      servedModel: "s".repeat(500),
      provider: "v".repeat(200),
      status: 0,
      stream: i % 2 === 0,
      fallbacks: 0,
      promptTokens: 5_000 + i,
      totalTokens: 5_000 + i,
      estimated: true,
      guardrail: {
        mode: "flag",
        verdict: "flag",
        rule: "PI-OVR-DE-01",
        at: `messages[${i}]`,
        score: 0.123456789,
        would_block: true,
        coverage: "partial",
        version: "g".repeat(100),
        layer: "remote",
      },
    }, at + 3),
    recovered: true,
  };
}

Deno.test("admission rows — 1,000 concurrent admissions of large records: every commit lands whole, each row under 64 KiB", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-rows-size-" });
  let observed = 0;
  const store = createKvStore(await Deno.openKv(`${dir}/sovra.kv`), 0, (writes) => {
    observed += writes;
  });
  try {
    await store.createOrg({ id: "org_a", name: "A", created: new Date(T0).toISOString() }, 0n);
    observed = 0;
    const records = Array.from({ length: REQUESTS }, (_, i) => largeRecord(i));
    await Promise.all(
      records.map((record) =>
        store.countRequest("key_a", minuteOf(T0), undefined, { instance: "inst_a", record })
      ),
    );
    assert.equal(observed, REQUESTS, "no commit fell back to one write at a time");

    const rows: AdmissionRow[] = [];
    for await (const entry of store.kv.list<AdmissionRow>({ prefix: ["admission"] })) {
      rows.push(entry.value);
    }
    assert.ok(rows.length > 1 && rows.length <= REQUESTS / 2, `${rows.length} rows`);
    const listed = rows.flatMap((row) => row.records.map((r) => r.id)).sort();
    assert.deepEqual(listed, records.map((r) => r.id).sort(), "each admission listed once");

    await Promise.all(
      records.map(({ recovered: _, ...r }) => store.settle({ ...r, status: 200 })),
    );
    assert.equal(observed, 2 * REQUESTS, "the settles' commits land whole too");
    assert.equal((await Array.fromAsync(store.kv.list({ prefix: ["admission"] }))).length, 0);
    assert.equal((await store.listRequests("org_a", 2 * REQUESTS)).length, REQUESTS);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
