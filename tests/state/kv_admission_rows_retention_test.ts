/**
 * Retention beside open admission rows on Deno KV (`src/state/kv/request_log.ts`, review of
 * bd00659): the request records an open row lists stay (recovery reads them to tell a settled
 * request from an open one), and nothing else is kept past `SOVRA_RETENTION_DAYS` because of
 * them. A row whose last request never settles (a settle that failed, or its input did) stays
 * open for the life of its process: it must pin its own listed records, not every request
 * record newer than them.
 */
import assert from "node:assert/strict";
import { createKvStore, type KvStore } from "../../src/state/kv/kv_store.ts";
import type { RequestRecord } from "../../src/state/records.ts";
import { runRetentionCleanup } from "../../src/state/retention.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { chatRecord } from "../helpers/request_record.ts";

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const DAY = 86_400_000;

const record = (org: string, at: number) => chatRecord(org, at);

const estimate = (r: RequestRecord): RequestRecord => ({ ...r, status: 0, recovered: true });

async function withStore(run: (store: KvStore) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "sovra-rows-retention-" });
  const store = createKvStore(await Deno.openKv(`${dir}/sovra.kv`), 2);
  try {
    for (const org of ["org_a", "org_b"]) {
      await store.createOrg(
        { id: org, name: org, created: new Date(T0 - 90 * DAY).toISOString() },
        0n,
      );
    }
    await run(store);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const ids = async (store: KvStore, org: string) =>
  (await store.listRequests(org, 100)).map((r) => r.id).sort();

Deno.test("retention — a row left open keeps only what it lists, not every newer request record", async () => {
  await withStore(async (store) => {
    // One commit admits two requests 40 days ago; one settles, the other never does (its
    // settle failed): the row stays open while this process lives.
    const [settled, stuck] = [record("org_a", T0 - 40 * DAY), record("org_a", T0 - 40 * DAY + 1)];
    await Promise.all(
      [settled, stuck].map((r) =>
        store.countRequest("key_a", minuteOf(T0), undefined, {
          instance: "inst_live",
          record: estimate(r),
        })
      ),
    );
    await store.settle(settled);
    // Request records past the 30 days, newer than the row's, in its organization and another.
    const expired = [record("org_a", T0 - 35 * DAY), record("org_b", T0 - 32 * DAY)];
    const kept = [record("org_a", T0 - 2 * DAY), record("org_b", T0 - DAY)];
    for (const r of [...expired, ...kept]) await store.settle(r);

    const deleted = await runRetentionCleanup(store, 30, T0);
    assert.equal(deleted.requests, 2, "the expired records the row does not list go");
    assert.deepEqual(await ids(store, "org_a"), [settled.id, kept[0]!.id].sort());
    assert.deepEqual(await ids(store, "org_b"), [kept[1]!.id]);

    // A crash now still bills the open request once, never the settled one a second time.
    await store.renewLease("inst_live", T0 - 1);
    assert.equal(await store.recoverAdmissions("inst_next", T0), 1);
    assert.deepEqual(await ids(store, "org_a"), [settled.id, stuck.id, kept[0]!.id].sort());
    // The spent credit counts every settle, the expired records' too.
    const spent = settled.cost_micro_eur + estimate(stuck).cost_micro_eur +
      expired[0]!.cost_micro_eur + kept[0]!.cost_micro_eur;
    assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, spent);

    // With the row closed by the recovery, its records follow the others.
    assert.equal((await runRetentionCleanup(store, 30, T0)).requests, 2);
    assert.deepEqual(await ids(store, "org_a"), [kept[0]!.id]);
  });
});
