/**
 * The gateway on PostgreSQL (`SOVRA_DATABASE_URL`): real HTTP, the simulator upstream, a
 * throwaway cluster. The start line names the backend and where (never the password); the
 * admin CLI works unchanged and `admin migrate` applies the schema; billing is exact.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { MIGRATIONS } from "../../src/state/postgres/migrations.ts";

const VERSIONS = MIGRATIONS.map((m) => m.version);
const LATEST = VERSIONS[VERSIONS.length - 1]!;
import { chatBody, jsonLines, REPO_ROOT, requestRows } from "../helpers/api.ts";
import { logRecord, startMain, writeMinimalCatalog } from "../contract/process_support.ts";

const cluster = await startPostgres();
const spillDir = await Deno.makeTempDir({ prefix: "sovra-spill-" });

async function adminCli(env: Record<string, string>, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/admin.ts", ...args],
    cwd: REPO_ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("postgres gateway — requests billed exactly, metadata listed, /healthz names the backend", async () => {
  const url = await cluster.database();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    env: { SOVRA_DATABASE_URL: url, SOVRA_SPILL_PATH: `${spillDir}/a.jsonl` },
    credits: 1_000_000,
  });
  for (let i = 0; i < 5; i++) {
    const res = await h.post("/v1/chat/completions", chatBody("acme/chat"));
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  }
  const rows = await requestRows(h, 5);
  assert.equal(rows.length, 5);
  const cost = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
  assert.ok(cost > 0);
  const org = await h.admin(["org", "show"], { org: h.org });
  assert.equal(org.balance_micro_eur, 1_000_000 - cost);
  const health = await (await fetch(`${h.url}/healthz`)).json();
  assert.deepEqual(health, {
    status: "ok",
    state: { backend: "postgres", reachable: true, spilled_settles: 0 },
  });
});

Deno.test("postgres admin CLI — migrate, then the contract's commands on the database", async () => {
  const url = await cluster.database();
  const env = { SOVRA_DATABASE_URL: url };
  const migrated = await adminCli(env, ["migrate"]);
  assert.equal(migrated.code, 0, migrated.stderr);
  assert.deepEqual(JSON.parse(migrated.stdout), {
    backend: "postgres",
    applied: VERSIONS,
    version: LATEST,
  });
  const again = await adminCli(env, ["migrate"]);
  assert.deepEqual(JSON.parse(again.stdout), { backend: "postgres", applied: [], version: LATEST });
  const org = JSON.parse(
    (await adminCli(env, ["org", "create", "--name", "Acme", "--credits-micro-eur", "900"])).stdout,
  );
  assert.equal(org.balance_micro_eur, 900);
  const topped = JSON.parse(
    (await adminCli(env, ["credits", "topup", "--org", org.id, "--micro-eur", "100"])).stdout,
  );
  assert.deepEqual(topped, { org: org.id, balance_micro_eur: 1000 });
  const key = JSON.parse(
    (await adminCli(env, ["key", "create", "--org", org.id, "--rpm", "7"])).stdout,
  );
  assert.match(key.key, /^sk-ex-/);
  const keys = jsonLines((await adminCli(env, ["key", "list", "--org", org.id])).stdout);
  assert.equal(keys.length, 1);
  assert.equal(keys[0]!.rpm, 7);
  assert.ok(!JSON.stringify(keys).includes(key.key));
  const revoked = await adminCli(env, ["key", "revoke", "--id", key.id]);
  assert.deepEqual(JSON.parse(revoked.stdout), { id: key.id, revoked: true });
  const missing = await adminCli(env, ["org", "show", "--org", "org_nope"]);
  assert.equal(missing.code, 1);
  assert.match(JSON.parse(missing.stderr).error, /does not exist/);
});

Deno.test("main.ts on postgres — one start line names backend, host and database, never the password; the dashboard serves too", async () => {
  const db = new URL(await cluster.database());
  const dir = await Deno.makeTempDir({ prefix: "sovra-pg-main-" });
  await writeMinimalCatalog(dir, ["acme/one"]);
  const withPassword = `postgres://sovra:hunter2-secret@127.0.0.1:${db.port}${db.pathname}`;
  const main = startMain({
    SOVRA_PORT: "0",
    SOVRA_CATALOG: dir,
    SOVRA_DATABASE_URL: withPassword,
    SOVRA_SPILL_PATH: `${dir}/spill.jsonl`,
  });
  try {
    const listening = logRecord(await main.waitForLine((l) => l.includes("sovra listening")));
    assert.equal(listening.state, "postgres");
    const backend = main.lines.filter((l) => l.includes('"state backend"')).map(logRecord);
    assert.equal(backend.length, 1);
    assert.equal(backend[0]!.backend, "postgres");
    assert.equal(backend[0]!.host, `127.0.0.1:${db.port}`);
    assert.equal(backend[0]!.database, db.pathname.slice(1));
    assert.equal(backend[0]!.schema_version, LATEST);
    assert.ok(!main.lines.join("\n").includes("hunter2"), main.lines.join("\n"));
    const dashboard = logRecord(
      await main.waitForLine((l) => l.includes('"sovra dashboard listening"')),
    );
    const login = await fetch(`${dashboard.url}/login`);
    await login.body?.cancel();
    assert.equal(login.status, 200);
  } finally {
    await main.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "postgres cluster teardown",
  fn: async () => {
    await cluster.stop();
    await Deno.remove(spillDir, { recursive: true });
  },
});
