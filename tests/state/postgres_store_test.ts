/**
 * What only the PostgreSQL store has: migrations raced by several instances, a replayed batch
 * billed once, retention run by one instance at a time, the spill file surviving a torn line,
 * revocation notices (LISTEN/NOTIFY) reaching another instance, also after a database restart, an
 * admission queued behind a full batch committed without the interval.
 */
import assert from "node:assert/strict";
import { startPostgres } from "../helpers/postgres.ts";
import { connect } from "../../src/state/postgres/connect.ts";
import { migrate } from "../../src/state/postgres/migrate.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { writeBatch } from "../../src/state/postgres/settle_sql.ts";
import { SettleSpill } from "../../src/state/postgres/settle_spill.ts";
import { MIGRATIONS } from "../../src/state/postgres/migrations.ts";
import { buildRequestRecord } from "../../src/billing/settle.ts";
import { timeOrderedId } from "../../src/util/ids.ts";
import { silentLogger } from "../../src/log.ts";
import { closing } from "../helpers/dispose.ts";
import { until } from "../helpers/until.ts";

const cluster = await startPostgres();

function record(org: string, at = Date.now()) {
  return buildRequestRecord({
    id: timeOrderedId("req_", at),
    startedAt: at,
    org,
    keyId: "key_a",
    user: undefined,
    endpoint: "chat",
    requestedModel: "acme/chat",
    model: { pricing: { prompt_micro_eur_per_million: 1_000_000 } } as never,
    servedModel: "acme/chat",
    provider: "sim-a",
    status: 200,
    stream: false,
    fallbacks: 0,
    promptTokens: 100,
    completionTokens: 0,
    estimated: false,
  }, at);
}

Deno.test("migrations — five instances starting together apply each migration once", async () => {
  const url = await cluster.database();
  const handles = Array.from({ length: 5 }, () => connect(url, 1));
  try {
    const results = await Promise.all(handles.map((sql) => migrate(sql)));
    const applied = results.flatMap((r) => r.applied);
    assert.deepEqual(applied, MIGRATIONS.map((m) => m.version));
    assert.ok(results.every((r) => r.version === MIGRATIONS.at(-1)!.version));
    const rows = await handles[0]!`select version from sovra_schema_migrations`;
    assert.equal(rows.length, MIGRATIONS.length);
  } finally {
    await Promise.all(handles.map((sql) => sql.end()));
  }
});

Deno.test("settle batch — replaying the same settles never bills twice", async () => {
  await using store = closing(
    await openPgStore(await cluster.database(), { spillPath: undefined }),
  );
  await store.createOrg({ id: "org_a", name: "A", created: new Date().toISOString() }, 1_000n);
  const records = [record("org_a"), record("org_a")];
  assert.equal(await writeBatch(store.sql, records, []), 2);
  assert.equal(await writeBatch(store.sql, records, []), 0);
  assert.equal(await writeBatch(store.sql, [...records, record("org_a")], []), 1);
  const org = await store.getOrg("org_a");
  assert.equal(org?.spent_micro_eur, 300);
  assert.equal((await store.dailyUsage("org_a", records[0]!.created.slice(0, 10))).requests, 3);
});

Deno.test("instance leases — a recovery pass drops leases long ended (no row per process start forever)", async () => {
  await using store = closing(
    await openPgStore(await cluster.database(), { spillPath: undefined }),
  );
  const now = Date.now();
  await store.renewLease("inst_gone", now - 3_600_000);
  await store.renewLease("inst_just_ended", now - 1_000);
  await store.renewLease("inst_live", now + 60_000);
  await store.recoverAdmissions("inst_self", now);
  const rows = await store.sql<{ id: string }[]>`select id from sovra_instances order by id`;
  assert.deepEqual(rows.map((r) => r.id), ["inst_just_ended", "inst_live"]);
});

Deno.test("retention — a second instance skips while one holds the cleanup lock", async () => {
  const url = await cluster.database();
  const store = await openPgStore(url, { spillPath: undefined });
  const other = connect(url, 1);
  try {
    await store.settle(record("org_a", Date.now() - 40 * 86_400_000));
    const holder = other.reserve();
    const conn = await holder;
    try {
      await conn`select pg_advisory_lock(${0x736f767261_02}::bigint)`;
      assert.deepEqual(await store.cleanup(new Date(), 0), { requests: 0, rateBuckets: 0 });
      await conn`select pg_advisory_unlock(${0x736f767261_02}::bigint)`;
    } finally {
      conn.release();
    }
    assert.deepEqual(await store.cleanup(new Date(), 0), { requests: 1, rateBuckets: 0 });
  } finally {
    await other.end();
    await store.close();
  }
});

Deno.test("spill file — a torn last line is skipped, the rest replayed and the file removed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-spill-" });
  const path = `${dir}/spill.jsonl`;
  const written: string[] = [];
  try {
    const a = record("org_a");
    const b = record("org_a");
    await Deno.writeTextFile(path, `${JSON.stringify(a)}\n${JSON.stringify(b)}\n{"id":"req_tor`);
    const spill = new SettleSpill(
      path,
      (records) => {
        written.push(...records.map((r) => r.id));
        return Promise.resolve();
      },
      silentLogger,
      1,
    );
    assert.equal(await spill.load(), 2);
    await spill.drained(10_000);
    await spill.stop();
    assert.deepEqual(written.sort(), [a.id, b.id].sort());
    await assert.rejects(() => Deno.stat(path), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("revocation notices — told to another instance, again after a database restart", async () => {
  const url = await cluster.database();
  const revoking = await openPgStore(url, { spillPath: undefined });
  const told = await openPgStore(url, { spillPath: undefined });
  try {
    await revoking.createOrg({ id: "org_a", name: "A", created: new Date().toISOString() }, 0n);
    const key = (id: string) =>
      revoking.createApiKey({ id, org: "org_a", name: null, rpm: 60, hash: id, prefix: "sk" });
    await key("key_1");
    await key("key_2");
    const heard: string[] = [];
    await told.onKeyRevoked!((id) => heard.push(id));
    assert.equal((await revoking.revokeApiKey("key_1"))?.revoked, true);
    await until("key_1's notice", () => heard.includes("key_1"), 30_000);
    assert.equal(await revoking.revokeApiKey("key_unknown"), undefined);

    // The listening connection is cut; it listens again on its own once the server is back.
    await cluster.pause();
    await cluster.resume();
    const deadline = Date.now() + 30_000;
    while (!heard.includes("key_2")) {
      // Revoking again notifies again: whichever notice comes after the new LISTEN is heard.
      await revoking.revokeApiKey("key_2").catch(() => undefined);
      if (Date.now() > deadline) throw new Error("no notice after the restart");
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(heard.filter((id) => id === "key_unknown"), []);
  } finally {
    await told.close();
    await revoking.close();
  }
});

Deno.test("group commit — an admission queued behind a full batch (2,000 writes) does not wait for the interval", async () => {
  await using store = closing(
    await openPgStore(await cluster.database(), { spillPath: undefined, commitIntervalMs: 60_000 }),
  );
  const minute = Math.floor(Date.now() / 60_000);
  // Queued in one turn: the first commit takes 2,000 of them, the admission is in the rest.
  const plain = Array.from({ length: 2_001 }, () => store.countRequest("key_a", minute));
  const admitted = record("org_a");
  const admission = store.countRequest("key_a", minute, undefined, {
    instance: "inst_a",
    record: { ...admitted, status: 0 },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  // 5 s: a liveness bound, far below the 60 s interval the admission would wait for.
  const inTime = await Promise.race([
    admission.then(() => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 5_000)),
  ]).finally(() => clearTimeout(timer));
  assert.equal(inTime, true, "the admission waited for the commit interval");
  await Promise.all(plain);
  assert.equal((await store.readGate("key_a", "org_a", minute)).rateCurrent, 2_002);
});

Deno.test("postgres cluster teardown (store)", async () => {
  await cluster.stop();
});
