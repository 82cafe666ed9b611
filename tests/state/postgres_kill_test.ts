/**
 * A gateway process killed with SIGKILL: nothing it acknowledged is lost and nothing is billed
 * twice. Killed in the middle of a load, the database holds whole batches only (rows, spent
 * credit and daily aggregates agree); killed while the database is away, the settles it had
 * fsynced to its spill file are written by the next process — exactly once.
 *
 * A statement the killed process had sent may still commit after the kill (the server finishes
 * it before it notices the closed socket), so the database is counted only once the killed
 * process's sessions are gone: from then on what it wrote is final.
 */
import assert from "node:assert/strict";
import { chatModel, SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { logRecord, type MainProcess, startMain } from "../contract/process_support.ts";
import { chatBody } from "../helpers/api.ts";
import { openPgStore, type PgStore } from "../../src/state/postgres/pg_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { closing } from "../helpers/dispose.ts";

function chat(url: string, key: string): Promise<number> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(chatBody("acme/chat")),
  }).then(async (res) => {
    await res.body?.cancel();
    return res.status;
  }, () => 0);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000; // liveness bound, not a timing assert
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The gateway's sessions carry this name, so the test can see when they are gone. */
const GATEWAY_APP = "sovra_kill_test_gateway";

async function gatewaySessions(store: PgStore): Promise<bigint> {
  const [row] = await store.sql<{ n: bigint }[]>`
    select count(*) as n from pg_stat_activity where application_name = ${GATEWAY_APP}`;
  return row!.n;
}

/** Rows, their cost, the org's spent credit and its daily totals agree (one snapshot). */
async function consistent(store: PgStore, org: string): Promise<number> {
  return await store.sql.begin("isolation level repeatable read", async (tx) => {
    const [row] = await tx<{ n: bigint; cost: bigint; ids: bigint }[]>`
      select count(*) as n, coalesce(sum(cost_micro_eur), 0)::int8 as cost,
        count(distinct id) as ids
      from sovra_requests where org_id = ${org}`;
    const [usage] = await tx<{ requests: bigint; cost: bigint }[]>`
      select coalesce(sum(requests), 0)::int8 as requests,
        coalesce(sum(cost_micro_eur), 0)::int8 as cost
      from sovra_usage_daily where org_id = ${org}`;
    const [credits] = await tx<{ spent: bigint }[]>`
      select spent_micro_eur as spent from sovra_credits where org_id = ${org}`;
    assert.equal(row!.ids, row!.n);
    assert.equal(credits!.spent, row!.cost);
    assert.equal(usage!.requests, row!.n);
    assert.equal(usage!.cost, row!.cost);
    return Number(row!.n);
  });
}

Deno.test("postgres kill -9 — no acknowledged debit lost, none doubled", async () => {
  const cluster = await startPostgres();
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-kill-" });
  const url = await cluster.database();
  await writeCatalog(
    dir,
    { "sim-a": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" } },
    [{ sovereignty: "strict", ...chatModel("acme/chat", "sim-chat") }],
  );
  const store = await openPgStore(url, { spillPath: undefined });
  let main: MainProcess | undefined;
  const start = async () => {
    main = startMain({
      SOVRA_PORT: "0",
      SOVRA_CATALOG: dir,
      SOVRA_DATABASE_URL: `${url}?application_name=${GATEWAY_APP}`,
      SOVRA_SPILL_PATH: `${dir}/spill.jsonl`,
      SOVRA_INSTANCE_LEASE_MS: "1000",
      SIM_KEY,
    });
    return String(logRecord(await main.waitForLine((l) => l.includes("sovra listening"))).url);
  };
  const kill = async () => {
    main!.signal("SIGKILL");
    await main!.stop();
  };
  try {
    const org = String(
      (await runAdminCommand(store, {
        command: ["org", "create"],
        flags: { name: "Kill", "credits-micro-eur": "100000000" },
        defaultRpm: 600,
      }) as { id: string }).id,
    );
    const key = String(
      (await runAdminCommand(store, {
        command: ["key", "create"],
        flags: { org, rpm: "100000" },
        defaultRpm: 600,
      }) as { key: string }).key,
    );

    // 1. Killed in the middle of a load (8 in flight, never waiting for the load to end).
    let gateway = await start();
    let answered = 0;
    let stop = false;
    const load = Promise.all(Array.from({ length: 8 }, async () => {
      while (!stop) if ((await chat(gateway, key)) === 200) answered++;
    }));
    await until("some answers", () => Promise.resolve(answered >= 100 ? true : undefined));
    assert.ok(await gatewaySessions(store) > 0n); // the wait below watches the right sessions
    await kill();
    stop = true;
    await load;
    await until(
      "the killed gateway's sessions to end",
      async () => (await gatewaySessions(store)) === 0n ? true : undefined,
    );
    const rows = await consistent(store, org);
    assert.ok(rows > 0 && rows <= answered + 8, `rows ${rows}, answered ${answered}`);
    // Answered but still queued in memory when killed (at most one commit interval's worth):
    // billed from their admission records below.
    console.log(JSON.stringify({ measured: "kill -9 mid-load", answered, billed: rows }));

    // 2. Killed while the database is away, after its settles were fsynced to the spill file.
    gateway = await start();
    // The requests the killed process had admitted (written before their upstream call) are
    // settled from their estimates by the new one once the old lease has ended.
    await until("the killed process's admissions settled", async () => {
      const [open] = await store.sql<{ n: bigint }[]>`select count(*) as n from sovra_admissions`;
      return open!.n === 0n ? true : undefined;
    });
    const recovered = (await consistent(store, org)) - rows;
    assert.ok(recovered >= 0 && recovered <= 8, `recovered ${recovered}`);
    // Every answered request is billed now: its settle, or else its admission record.
    assert.ok(rows + recovered >= answered, `${rows} + ${recovered} < ${answered}`);
    for (let i = 0; i < 5; i++) assert.equal(await chat(gateway, key), 200);
    const before = await until("the warm-up rows", async () => {
      const n = await consistent(store, org);
      return n === rows + recovered + 5 ? n : undefined;
    });
    await store.close();
    await cluster.pause();
    for (let i = 0; i < 12; i++) assert.equal(await chat(gateway, key), 200);
    await until("12 spilled settles", async () => {
      const health = await (await fetch(`${gateway}/healthz`)).json();
      return health.state.spilled_settles === 12 ? true : undefined;
    });
    await kill();
    await cluster.resume();
    await using again = closing(await openPgStore(url, { spillPath: undefined }));
    await start();
    const after = await until("the spilled settles replayed", async () => {
      const n = await consistent(again, org);
      return n >= before + 12 ? n : undefined;
    });
    assert.equal(after, before + 12);
    await main!.stop();
    await assert.rejects(() => Deno.stat(`${dir}/spill.jsonl`), Deno.errors.NotFound);
  } finally {
    await main?.stop();
    await store.close().catch(() => {});
    await sim.close();
    await cluster.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
