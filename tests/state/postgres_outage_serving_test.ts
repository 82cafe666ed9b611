/**
 * The database stopped under load for longer than the instance lease (the 30 s and
 * 111 s outages of a 15 s lease, here shortened to 4 s and 15 s of a 2 s lease: the same paths,
 * lease renewals failing for two and for seven leases). Two `deno task start` processes on one
 * database (two isolates serving, and a second process whose recovery pass watches the first).
 *
 * - Served through it: every request gets its 200 within a deadline a stall of the old kind
 *   (7–18 s a request, behind a store that does not answer) would miss.
 * - Money does not move: no live instance is billed from its estimates; every answered request
 *   has its row with the status and the usage its client got, at its real cost, once.
 * - After it: `/healthz` of every isolate says `ok` again (seconds, not the former minutes), and a key no isolate has
 *   seen yet works at once (no dead pooled connection answers it, no reconnect backoff delays it).
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startInstances } from "../helpers/instances.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { startLoad } from "../helpers/load.ts";
import { until } from "../helpers/until.ts";
import { connect } from "../../src/state/postgres/connect.ts";
import { costMicroEur } from "../../src/billing/cost.ts";
import type { RequestRecord } from "../../src/state/records.ts";

const PRICING = {
  prompt_micro_eur_per_million: 1_000_000,
  completion_micro_eur_per_million: 3_000_000,
};
const LEASE_MS = 2_000;
/** Far above a request's normal latency, far below a stall behind an unanswering store. */
const REQUEST_DEADLINE_MS = 4_000;

let lastHealth: unknown[] = [];

async function healthyEverywhere(url: string): Promise<boolean> {
  // Each probe on a connection of its own: the kernel picks an isolate.
  const states = await Promise.all(Array.from({ length: 8 }, async () => {
    const client = Deno.createHttpClient({});
    try {
      return await (await fetch(`${url}/healthz`, { client })).json();
    } finally {
      client.close();
    }
  }));
  lastHealth = states;
  return states.every((s) => s.status === "ok");
}

async function outage(seconds: number) {
  await using cluster = await startPostgres();
  const databaseUrl = await cluster.database();
  await using setup = await startInstances({
    models: [chatModel("acme/chat", "sim-chat", { pricing: PRICING })],
    accounts: [{ credits: 1_000_000_000 }, { credits: 1_000_000 }, { credits: 1_000_000 }],
    databaseUrl,
    env: { SOVRA_INSTANCE_LEASE_MS: String(LEASE_MS), SOVRA_LOG: "info" },
  });
  const [payer, fresh1, fresh2] = setup.accounts as [
    (typeof setup.accounts)[0],
    (typeof setup.accounts)[0],
    (typeof setup.accounts)[0],
  ];
  const serving = await setup.start({ SOVRA_WORKERS: "2" });
  await setup.start({ SOVRA_WORKERS: "1" }); // its recovery pass looks at the first one

  const load = startLoad(serving.url, payer.key, { deadlineMs: REQUEST_DEADLINE_MS });
  await until("answers before the outage", () => load.answered.length >= 20, 20_000);
  await cluster.pause();
  const during = load.answered.length;
  // The outage itself: the time the database is away, not a wait for a condition.
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  const servedWhileDown = load.answered.length - during;
  await cluster.resume();
  const resumed = performance.now();
  // `/healthz` reflects the recovery in seconds, where it used to take minutes. The wait is
  // generous (a loaded CI machine restarts PostgreSQL slowly); the latency itself is measured
  // by scripts/bench/outage_latency.ts, not asserted here.
  await until("healthz ok on every isolate", () => healthyEverywhere(serving.url), 30_000)
    .catch((error) => {
      const logs = serving.main.lines.filter((l) =>
        /spill|unavailable|available|error|reachable/.test(l)
      );
      throw new Error(
        `${error.message}: ${JSON.stringify(lastHealth)}\n${logs.slice(-30).join("\n")}`,
      );
    });
  const healthyAfterMs = Math.round(performance.now() - resumed);
  const answered = await load.stop();
  assert.deepEqual(load.failures, [], "every request answered 200 within the deadline");
  assert.ok(servedWhileDown > 0, "requests served while the database was stopped");

  // Keys no isolate has looked up yet: their first lookup after the restart works.
  for (const account of [fresh1, fresh2]) {
    const res = await fetch(`${serving.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/chat", messages: [{ role: "user", content: "hi" }] }),
    });
    const text = await res.text();
    const logs = serving.main.lines.filter((l) => /"(error|warn)"|available/.test(l)).slice(-15);
    assert.equal(res.status, 200, `${text}\n${logs.join("\n")}`);
  }

  // Every settle written (spill files replayed), then the store as it stands.
  const sql = connect(databaseUrl, 1);
  try {
    // Settles still queued or spilled land within seconds; what is wrong then is shown below.
    await until("every answered request recorded at its real status", async () => {
      const [row] = await sql<{ n: number; estimates: number }[]>`
        select count(*)::int as n,
          count(*) filter (where record->>'recovered' = 'true')::int as estimates
        from sovra_requests where org_id = ${payer.org}`;
      return row!.n >= answered.length && row!.estimates === 0;
    }, 20_000).catch(() => {});
    const rows = await sql<{ id: string; record: RequestRecord }[]>`
      select id, record from sovra_requests where org_id = ${payer.org}`;
    const byId = new Map(rows.map((r) => [r.id, r.record]));
    assert.equal(rows.length, answered.length, "one row per answered request, no other");
    let cost = 0;
    const wrong: string[] = [];
    for (const a of answered) {
      const record = byId.get(a.id);
      const expected = costMicroEur(PRICING, {
        promptTokens: a.promptTokens,
        completionTokens: a.completionTokens,
      });
      if (
        !record || record.status !== 200 || record.recovered ||
        record.prompt_tokens !== a.promptTokens ||
        record.completion_tokens !== a.completionTokens || record.cost_micro_eur !== expected
      ) wrong.push(`${a.id}: ${JSON.stringify(record)}`);
      cost += expected;
    }
    assert.deepEqual(wrong, [], "every answered request at its real cost and status");
    const [credits] = await sql<{ spent: bigint }[]>`
      select spent_micro_eur as spent from sovra_credits where org_id = ${payer.org}`;
    assert.equal(Number(credits!.spent), cost);
    console.log(JSON.stringify({
      measured: "postgres outage",
      outage_s: seconds,
      lease_ms: LEASE_MS,
      answered: answered.length,
      served_while_down: servedWhileDown,
      healthz_ok_after_ms: healthyAfterMs,
    }));
  } finally {
    await sql.end();
  }
}

Deno.test("postgres outage of two leases (the issue's 30 s of a 15 s lease) — served, every answer billed at its real cost", async () => {
  await outage(4);
});

Deno.test("postgres outage of seven leases (the issue's 111 s) — served, every answer billed at its real cost", async () => {
  await outage(15);
});
