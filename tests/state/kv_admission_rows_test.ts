/**
 * One admission row per group commit on Deno KV (`src/state/kv/admission_rows.ts`):
 * the rows a commit writes and closes, and through the real KV store that a crash still bills
 * every listed request that was not settled, once, and that retention keeps the request
 * records an open row relies on.
 */
import assert from "node:assert/strict";
import { AdmissionRows, ROW_RECORDS } from "../../src/state/kv/admission_rows.ts";
import { createKvStore, type KvStore } from "../../src/state/kv/kv_store.ts";
import type { AdmissionRow, RequestRecord } from "../../src/state/records.ts";
import { runRetentionCleanup } from "../../src/state/retention.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { chatRecord } from "../helpers/request_record.ts";

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
let seq = 0;

const record = (at = T0 + seq++): RequestRecord => chatRecord("org_a", at);

/** The estimate an admission carries for a request (status 0, recovered). */
const estimate = (r: RequestRecord): RequestRecord => ({ ...r, status: 0, recovered: true });

const rowSets = (plan: ReturnType<AdmissionRows["plan"]>) =>
  plan.mutations.filter((m) => m.type === "set").map((m) => m.value as AdmissionRow);
const rowDeletes = (plan: ReturnType<AdmissionRows["plan"]>) =>
  plan.mutations.filter((m) => m.type === "delete").map((m) => m.key);

Deno.test("admission rows — one row per instance and commit, keyed by its first request", () => {
  const rows = new AdmissionRows();
  const [a, b, c] = [record(), record(), record()];
  const plan = rows.plan([
    { instance: "inst_1", record: a },
    { instance: "inst_2", record: b },
    { instance: "inst_1", record: c },
  ], []);
  assert.deepEqual(rowSets(plan), [
    { instance: "inst_1", records: [a, c] },
    { instance: "inst_2", records: [b] },
  ]);
  assert.deepEqual(plan.mutations.map((m) => m.key), [["admission", a.id], ["admission", b.id]]);
  assert.equal(rows.open, 0, "nothing is open before the commit is durable");
  plan.apply();
  assert.equal(rows.open, 3);
});

Deno.test("admission rows — a row closes with the settle of its last open request", () => {
  const rows = new AdmissionRows();
  const [a, b, c] = [record(), record(), record()];
  rows.plan([a, b, c].map((r) => ({ instance: "inst_1", record: r })), []).apply();
  const first = rows.plan([], [a.id]);
  assert.deepEqual(first.mutations, [], "two requests of the row are still open");
  first.apply();
  // Settles of the same row in one commit: the last closes it.
  const rest = rows.plan([], [c.id, b.id]);
  assert.deepEqual(rowDeletes(rest), [["admission", a.id]]);
  rest.apply();
  assert.equal(rows.open, 0);
  assert.deepEqual(rows.plan([], [b.id]).mutations, [], "a settle without a row deletes nothing");
});

Deno.test("admission rows — an admission settled in the same commit gets no row", () => {
  const rows = new AdmissionRows();
  const [a, b] = [record(), record()];
  const plan = rows.plan([a, b].map((r) => ({ instance: "inst_1", record: r })), [a.id]);
  assert.deepEqual(rowSets(plan), [{ instance: "inst_1", records: [b] }]);
  assert.deepEqual(rowDeletes(plan), []);
  plan.apply();
  assert.equal(rows.open, 1);
});

Deno.test("admission rows — a commit that fails opens and closes nothing", () => {
  const rows = new AdmissionRows();
  const [a, b] = [record(), record()];
  rows.plan([a, b].map((r) => ({ instance: "inst_1", record: r })), []).apply();
  rows.plan([], [a.id, b.id]); // not applied: that commit failed
  assert.equal(rows.open, 2);
  assert.deepEqual(rowDeletes(rows.plan([], [a.id, b.id])), [["admission", a.id]]);
  const lost = rows.plan([{ instance: "inst_1", record: record() }], []); // not applied
  assert.equal(rowSets(lost).length, 1);
  assert.equal(rows.open, 2);
});

Deno.test("admission rows — at most 32 records and ~24 KiB a row (KV values stop at 64 KiB)", () => {
  const rows = new AdmissionRows();
  const many = Array.from({ length: 70 }, () => ({ instance: "inst_1", record: record() }));
  assert.deepEqual(rowSets(rows.plan(many, [])).map((r) => r.records.length), [
    ROW_RECORDS,
    ROW_RECORDS,
    70 - 2 * ROW_RECORDS,
  ]);
  // Long end-user ids (256 characters, two bytes each when not Latin-1) fill a row sooner.
  const long = Array.from({ length: 40 }, () => ({
    instance: "inst_1",
    record: { ...record(), user: "ü".repeat(256), requested_model: "m".repeat(4_000) },
  }));
  const sets = rowSets(rows.plan(long, []));
  assert.ok(sets.length > 2, `${sets.length} rows`);
  for (const row of sets) {
    // V8 serialises each row (what KV stores) into less than its 64 KiB cap.
    assert.ok(new TextEncoder().encode(JSON.stringify(row)).length < 60 * 1024);
  }
});

async function withStore(run: (store: KvStore) => Promise<void>) {
  const store = createKvStore(await Deno.openKv(":memory:"), 2);
  try {
    await store.createOrg({ id: "org_a", name: "A", created: new Date(T0).toISOString() }, 10_000n);
    await run(store);
  } finally {
    await store.close();
  }
}

async function admissionRows(store: KvStore): Promise<AdmissionRow[]> {
  const rows: AdmissionRow[] = [];
  for await (const entry of store.kv.list<AdmissionRow>({ prefix: ["admission"] })) {
    rows.push(entry.value);
  }
  return rows;
}

/** Admits the records in one group commit (all queued before it starts). */
function admitTogether(store: KvStore, instance: string, records: RequestRecord[]) {
  const minute = minuteOf(T0);
  return Promise.all(
    records.map((r) => store.countRequest("key_a", minute, undefined, { instance, record: r })),
  );
}

Deno.test("admission rows on KV — one row for a commit's admissions, gone after the last settle", async () => {
  await withStore(async (store) => {
    const done = [record(), record(), record()];
    await admitTogether(store, "inst_live", done.map(estimate));
    assert.deepEqual(await admissionRows(store), [{
      instance: "inst_live",
      records: done.map(estimate),
    }]);
    await store.settle(done[0]!);
    await store.settle(done[2]!);
    assert.equal((await admissionRows(store)).length, 1, "one request is still open");
    await store.settle(done[1]!);
    assert.deepEqual(await admissionRows(store), []);
    assert.equal((await store.readGate("key_a", "org_a", minuteOf(T0))).rateCurrent, 3);
  });
});

Deno.test("admission rows on KV — a dead instance's row bills only its unsettled requests, once", async () => {
  await withStore(async (store) => {
    const [settled, open1, open2] = [record(), record(), record()];
    await admitTogether(store, "inst_dead", [settled, open1, open2].map(estimate));
    await store.settle(settled);
    await store.renewLease("inst_dead", T0 - 1);
    // Two instances recovering at once: each open request is billed once, never the settled one.
    const counts = await Promise.all([
      store.recoverAdmissions("inst_live", T0),
      store.recoverAdmissions("inst_other", T0),
    ]);
    assert.equal(counts[0] + counts[1], 2);
    assert.equal(await store.recoverAdmissions("inst_other", T0), 0);
    assert.deepEqual(await admissionRows(store), []);
    const rows = await store.listRequests("org_a", 10);
    assert.deepEqual(rows.map((r) => r.id).sort(), [settled.id, open1.id, open2.id].sort());
    assert.deepEqual(rows.find((r) => r.id === settled.id), settled, "the settle stays as written");
    for (const open of [open1, open2]) {
      assert.deepEqual(rows.find((r) => r.id === open.id), estimate(open));
    }
    const spent = settled.cost_micro_eur + open1.cost_micro_eur + open2.cost_micro_eur;
    assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, spent);
  });
});

Deno.test("admission rows on KV — recovery still settles a record written before rows", async () => {
  await withStore(async (store) => {
    const old = estimate(record());
    await store.kv.set(["admission", old.id], { instance: "inst_dead", record: old });
    assert.equal(await store.recoverAdmissions("inst_live", T0), 1);
    assert.deepEqual(await store.listRequests("org_a", 10), [old]);
    assert.deepEqual(await admissionRows(store), []);
  });
});

Deno.test("admission rows on KV — retention keeps the request records an open row lists", async () => {
  await withStore(async (store) => {
    const day = 86_400_000;
    // A row listing a request settled 40 days ago and one still open (a live instance).
    const [settledOld, openOld] = [record(T0 - 40 * day), record(T0 - 40 * day + 1)];
    const recent = record(T0 - 1 * day);
    await admitTogether(store, "inst_live", [settledOld, openOld].map(estimate));
    await store.settle(settledOld);
    await store.settle(recent);
    assert.deepEqual(await runRetentionCleanup(store, 30, T0), { requests: 0, rateBuckets: 0 });
    // Had the record gone, a crash now would bill `settledOld` a second time.
    assert.equal((await store.listRequests("org_a", 10)).length, 2);
    await store.settle(openOld);
    assert.deepEqual(await admissionRows(store), []);
    assert.deepEqual(await runRetentionCleanup(store, 30, T0), { requests: 2, rateBuckets: 0 });
    assert.deepEqual(await store.listRequests("org_a", 10), [recent]);
  });
});
