/**
 * The database goes away mid-load and comes back: requests keep being served (cached keys,
 * the last gate snapshot, the limiter failing open), every settle is kept in the spill file and
 * written once the database is back — also by the next process when this one stops first —
 * and nothing is billed twice. /healthz says what is happening.
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { chatBody } from "../helpers/api.ts";
import type { PgStore } from "../../src/state/postgres/pg_store.ts";
import { connect } from "../../src/state/postgres/connect.ts";

async function load(h: Harness, count: number, concurrency = 4): Promise<number> {
  let ok = 0;
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next++;
      const res = await h.post("/v1/chat/completions", chatBody("acme/chat"));
      const text = await res.text();
      assert.equal(res.status, 200, text);
      ok++;
    }
  }));
  return ok;
}

async function health(h: Harness) {
  return await (await fetch(`${h.url}/healthz`)).json();
}

Deno.test("postgres outage — served through a stop/start, settles spilled, replayed once, also after a restart", async () => {
  const cluster = await startPostgres();
  const dir = await Deno.makeTempDir({ prefix: "sovra-outage-" });
  const url = await cluster.database();
  const env = {
    SOVRA_DATABASE_URL: url,
    SOVRA_SPILL_PATH: `${dir}/spill.jsonl`,
    SOVRA_LOG: "error",
  };
  let h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")], env });
  const org = h.org;
  try {
    let served = await load(h, 20);
    await h.flushed();

    // Stopped mid-load: the load keeps going while the server shuts down.
    const during = load(h, 30);
    await cluster.pause();
    served += await during;
    served += await load(h, 10);
    await h.flushed();
    const down = await health(h);
    assert.equal(down.status, "degraded");
    assert.equal(down.state.reachable, false);
    assert.ok(down.state.spilled_settles > 0, JSON.stringify(down));

    await cluster.resume();
    await (h.store as unknown as PgStore).spillDrained();
    served += await load(h, 10);
    await h.flushed();
    assert.equal((await health(h)).status, "ok");

    // Down again, and this process stops before the database is back: the next one replays.
    await cluster.pause();
    served += await load(h, 10);
    await h.flushed();
    const spilled = (await health(h)).state.spilled_settles;
    assert.ok(spilled > 0);
    await h.close();
    const lines = (await Deno.readTextFile(`${dir}/spill.jsonl`)).trim().split("\n");
    assert.equal(lines.length, spilled);
    await cluster.resume();
    h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")], env });
    await (h.store as unknown as PgStore).spillDrained();
    await assert.rejects(() => Deno.stat(`${dir}/spill.jsonl`), Deno.errors.NotFound);

    // Every served request billed exactly once.
    const sql = connect(url, 1);
    try {
      const [rows] = await sql<{ n: bigint; cost: string }[]>`
        select count(*) as n, sum(cost_micro_eur)::text as cost from sovra_requests
        where org_id = ${org}`;
      assert.equal(Number(rows!.n), served);
      const [credits] = await sql<{ spent: bigint }[]>`
        select spent_micro_eur as spent from sovra_credits where org_id = ${org}`;
      assert.equal(credits!.spent, BigInt(rows!.cost));
      const [usage] = await sql<{ requests: bigint; cost: bigint }[]>`
        select sum(requests)::int8 as requests, sum(cost_micro_eur)::int8 as cost
        from sovra_usage_daily where org_id = ${org}`;
      assert.equal(Number(usage!.requests), served);
      assert.equal(usage!.cost, BigInt(rows!.cost));
    } finally {
      await sql.end();
    }
  } finally {
    await h.close();
    await cluster.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
