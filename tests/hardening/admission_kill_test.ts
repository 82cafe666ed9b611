/**
 * Kill -9 under load. Settles are written after the answer, so a process
 * killed with settles still queued used to leave answered requests unbilled (the issue: 123 of
 * 17,405). Now every request that calls a provider writes an admission record with its rate
 * increment, and its answer waits until that record is durable; the next process (or any live
 * one) settles the records of a process whose lease ended. Here the commit interval is long
 * (300 ms), so many settles are queued when the process dies: every request the client saw
 * succeed must end up billed, none twice — on Deno KV and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { chatModel, SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { logRecord, type MainProcess, startMain } from "../contract/process_support.ts";
import { chatBody } from "../helpers/api.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { type KillBackend, kvKillBackend, pgKillBackend } from "./kill_backends.ts";
import type { RequestRecord } from "../../src/state/records.ts";

const LEASE_MS = 1_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000; // liveness bound, not a timing assert
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One chat request; the request id when the client saw a 200 with a whole answer. */
async function chat(url: string, key: string, stream: boolean): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(chatBody("acme/chat", "Hello there", { stream })),
    });
    const text = await res.text();
    if (res.status !== 200) return undefined;
    if (stream && !text.includes("data: [DONE]")) return undefined;
    return res.headers.get("x-sovra-request-id") ?? undefined;
  } catch {
    return undefined; // the process died mid-answer: the client saw no success
  }
}

async function killUnderLoad(backend: KillBackend, simUrl: string, dir: string) {
  await writeCatalog(
    dir,
    { "sim-a": { dialect: "openai", base_url: simUrl, api_key_env: "SIM_KEY" } },
    [{ sovereignty: "strict", ...chatModel("acme/chat", "sim-chat") }],
  );
  const org = String(
    (await runAdminCommand(backend.store, {
      command: ["org", "create"],
      flags: { name: "Kill", "credits-micro-eur": "100000000" },
      defaultRpm: 600,
    }) as { id: string }).id,
  );
  const key = String(
    (await runAdminCommand(backend.store, {
      command: ["key", "create"],
      flags: { org, rpm: "100000" },
      defaultRpm: 600,
    }) as { key: string }).key,
  );
  const processes: MainProcess[] = [];
  const start = async () => {
    const main = startMain({
      SOVRA_PORT: "0",
      SOVRA_DASHBOARD_PORT: "0",
      SOVRA_CATALOG: dir,
      SOVRA_LOG: "info",
      SOVRA_ALLOW_LOCAL_UPSTREAMS: "true",
      SOVRA_COMMIT_INTERVAL_MS: "300",
      SOVRA_INSTANCE_LEASE_MS: String(LEASE_MS),
      SIM_KEY,
      ...backend.env,
    });
    processes.push(main);
    return String(logRecord(await main.waitForLine((l) => l.includes("sovra listening"))).url);
  };
  try {
    const url = await start();
    const answered: string[] = [];
    let stop = false;
    const load = Promise.all(Array.from({ length: 8 }, async (_, i) => {
      while (!stop) {
        const id = await chat(url, key, i % 2 === 1);
        if (id) answered.push(id);
      }
    }));
    await until("some answers", () => Promise.resolve(answered.length >= 60 ? true : undefined));
    processes[0]!.signal("SIGKILL");
    await processes[0]!.stop();
    stop = true;
    await load;

    // The next process settles what the dead one admitted, once its lease has ended.
    const next = await start();
    const rows = await until("every answered request billed", async () => {
      const rows = await backend.store.listRequests(org, 10_000);
      const ids = new Set(rows.map((r) => r.id));
      return answered.every((id) => ids.has(id)) ? rows : undefined;
    });
    const recovered = await until("no admission left open", async () => {
      const totals = await backend.totals(org);
      return totals.admissions === 0 ? rows.filter((r) => r.recovered) : undefined;
    });
    assert.ok(next.length > 0);
    const final = await backend.store.listRequests(org, 10_000);
    const byId = new Map<string, RequestRecord>(final.map((r) => [r.id, r]));
    for (const id of answered) assert.ok(byId.get(id)!.cost_micro_eur > 0, `${id} billed`);
    // None twice: the debit and the daily count are exactly the records' sums.
    const totals = await backend.totals(org);
    assert.equal(totals.spent, final.reduce((sum, r) => sum + r.cost_micro_eur, 0));
    assert.equal(totals.requests, final.length);
    for (const r of recovered) {
      assert.equal(r.status, 0);
      assert.equal(r.estimated, true);
    }
    console.log(JSON.stringify({
      measured: "kill -9 under load",
      answered: answered.length,
      billed: final.length,
      recovered: recovered.length,
    }));
  } finally {
    for (const main of processes) await main.stop();
  }
}

Deno.test("attack — kill -9 under load on Deno KV: every answered request billed, none twice", async () => {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-kill-kv-" });
  const kvPath = `${dir}/sovra.kv`;
  const store = await openKvStore(kvPath);
  try {
    await killUnderLoad(
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

Deno.test("attack — kill -9 under load on PostgreSQL: every answered request billed, none twice", async () => {
  const cluster = await startPostgres();
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-kill-pg-" });
  const url = await cluster.database();
  const store = await openPgStore(url, { spillPath: undefined });
  try {
    await killUnderLoad(
      pgKillBackend(url, `${dir}/spill.jsonl`, store),
      sim.url,
      dir,
    );
  } finally {
    await store.close();
    await sim.close();
    await cluster.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
