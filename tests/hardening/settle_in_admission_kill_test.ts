/**
 * Kill -9 after answers whose settles rode their admission's commit. The commit interval is a
 * minute, so nothing is written unless an answer waits for it: each whole answer from the
 * instant simulator comes before its admission record was sent, its settle takes the record's
 * place, and the answer goes out once that one commit is durable. The process is then killed
 * with SIGKILL; every answered request must be billed from its own record, exactly once, and
 * recovery (another instance, after the dead one's lease) must find nothing to bill from an
 * estimate — on Deno KV and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { chatModel, SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { embeddingModel } from "../helpers/non_chat.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { logRecord, startMain } from "../contract/process_support.ts";
import { chatBody } from "../helpers/api.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { type KillBackend, kvKillBackend, pgKillBackend } from "./kill_backends.ts";

const LEASE_MS = 1_000;

const REQUESTS: Array<[string, unknown]> = [
  ["/v1/chat/completions", chatBody("acme/chat", "Hello there")],
  ["/v1/chat/completions", chatBody("acme/chat", "Hello again")],
  ["/v1/responses", { model: "acme/chat", input: "Hello there" }],
  ["/v1/embeddings", { model: "acme/embed", input: "some text" }],
];

async function killAfterAnswers(backend: KillBackend, simUrl: string, dir: string) {
  await writeCatalog(
    dir,
    { "sim-a": { dialect: "openai", base_url: simUrl, api_key_env: "SIM_KEY" } },
    [
      { sovereignty: "strict", ...chatModel("acme/chat", "sim-chat") },
      embeddingModel("acme/embed", "sim-embed"),
    ],
  );
  const admin = (command: string[], flags: Record<string, string>) =>
    runAdminCommand(backend.store, { command, flags, defaultRpm: 600 });
  const org = String(
    (await admin(["org", "create"], { name: "Kill", "credits-micro-eur": "100000000" }) as {
      id: string;
    }).id,
  );
  const key = String(
    (await admin(["key", "create"], { org, rpm: "100000" }) as { key: string }).key,
  );
  const main = startMain({
    SOVRA_PORT: "0",
    SOVRA_DASHBOARD_PORT: "0",
    SOVRA_CATALOG: dir,
    SOVRA_LOG: "info",
    SOVRA_ALLOW_LOCAL_UPSTREAMS: "true",
    SOVRA_COMMIT_INTERVAL_MS: "60000",
    SOVRA_INSTANCE_LEASE_MS: String(LEASE_MS),
    SIM_KEY,
    ...backend.env,
  });
  const answered: string[] = [];
  try {
    const url = String(logRecord(await main.waitForLine((l) => l.includes("sovra listening"))).url);
    for (const [path, body] of REQUESTS) {
      const res = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      assert.equal(res.status, 200, path);
      answered.push(res.headers.get("x-sovra-request-id")!);
    }
    main.signal("SIGKILL");
  } finally {
    await main.stop();
  }

  // Another instance, once the dead one's lease has ended, finds nothing to bill.
  assert.equal(await backend.store.recoverAdmissions("inst_other", Date.now() + 60_000), 0);
  const rows = await backend.store.listRequests(org, 100);
  assert.deepEqual(rows.map((r) => r.id).sort(), [...answered].sort(), "every answer recorded");
  for (const row of rows) {
    assert.equal(row.status, 200, `${row.endpoint}: its own record`);
    assert.notEqual(row.recovered, true, `${row.endpoint}: not billed from an estimate`);
    assert.ok(row.cost_micro_eur > 0, `${row.endpoint}: billed`);
  }
  const totals = await backend.totals(org);
  assert.equal(totals.spent, rows.reduce((sum, r) => sum + r.cost_micro_eur, 0), "billed once");
  assert.equal(totals.requests, rows.length);
  assert.equal(totals.admissions, 0, "no admission record written");
}

Deno.test("crash safety — kill -9 after settles in their admission's commit on Deno KV: each answer billed once from its own record", async () => {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-fold-kill-kv-" });
  const kvPath = `${dir}/sovra.kv`;
  const store = await openKvStore(kvPath);
  try {
    await killAfterAnswers(
      kvKillBackend(kvPath, store),
      sim.url,
      dir,
    );
  } finally {
    await store.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("crash safety — kill -9 after settles in their admission's commit on PostgreSQL: each answer billed once from its own record", async () => {
  await using cluster = await startPostgres();
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-fold-kill-pg-" });
  const url = await cluster.database();
  const store = await openPgStore(url, { spillPath: undefined });
  try {
    await killAfterAnswers(
      pgKillBackend(url, `${dir}/spill.jsonl`, store),
      sim.url,
      dir,
    );
  } finally {
    await store.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
});
