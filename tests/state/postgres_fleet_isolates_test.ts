/**
 * A fleet's bounds are per process, not per isolate (README "Running a fleet", docs/fleet.md):
 * two `deno task start` processes of two isolates each on one PostgreSQL database count as
 * N = 2 instances. A burst on one key is admitted at most N · rpm times; 1,000 concurrent
 * requests on a 10,000 µEUR balance overdraw at most (N − 1) · B + N · h (h: one request's
 * hold); a key's budget, decided the same way, is spent at most N · (budget + h). Were each
 * isolate an instance of its own, the burst would be admitted up to 4 · rpm times.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import {
  type Account,
  burst,
  INSTANCE_HOLD,
  INSTANCE_PRICING,
  instanceChat,
  startInstances,
} from "../helpers/instances.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { until } from "../helpers/until.ts";
import { budgetWindow } from "../../src/util/budget_period.ts";

const PROCESSES = 2;
const BALANCE = 10_000;
const BUDGET = 10_000;

// A loaded CI host can take longer than the 1 s default store deadline for a first read; the
// deadline and what it serves are the outage tests' subject, not this one's.
const LENIENT_STORE = { SOVRA_STORE_DEADLINE_MS: "10000" };

Deno.test("fleet of 2 processes × 2 isolates on PostgreSQL — rate ≤ N·rpm and overdraw ≤ (N−1)·B + N·h with N the processes", async (t) => {
  await using cluster = await startPostgres();
  await using setup = await startInstances({
    models: [chatModel("acme/chat", "sim-chat+slow-200", { pricing: INSTANCE_PRICING })],
    accounts: [
      { credits: 1_000_000_000, rpm: 20 },
      { credits: 1_000_000_000, rpm: 100 },
      { credits: BALANCE },
      { credits: 1_000_000_000, budget: { micro: BUDGET, period: "month" } },
    ],
    databaseUrl: await cluster.database(),
  });
  const [rpm20, rpm100, poor, capped] = setup.accounts as [Account, Account, Account, Account];
  const urls: string[] = [];
  for (let i = 0; i < PROCESSES; i++) {
    urls.push((await setup.start({ SOVRA_WORKERS: "2", ...LENIENT_STORE })).url);
  }

  await t.step("a key's rate: at most N · rpm admitted, N the processes", async () => {
    for (const [account, rpm] of [[rpm20, 20], [rpm100, 100]] as const) {
      const statuses = await burst(
        4 * rpm,
        (i, client) => instanceChat(urls[i % PROCESSES]!, account, client, false),
      );
      assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 429), []);
      const admitted = statuses.filter((s) => s === 200).length;
      assert.ok(admitted >= rpm, `rpm ${rpm}: ${admitted} admitted, at least rpm`);
      assert.ok(admitted <= PROCESSES * rpm, `rpm ${rpm}: ${admitted} admitted`);
      console.log(JSON.stringify({ measured: "fleet rate burst", rpm, admitted }));
    }
  });

  await t.step(
    "credit: 1,000 concurrent requests overdraw at most (N − 1) · B + N · h",
    async () => {
      const statuses = await burst(
        1_000,
        (i, client) => instanceChat(urls[i % PROCESSES]!, poor, client, i % 4 >= 2),
      );
      assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 402), []);
      const served = statuses.filter((s) => s === 200).length;
      const store = await setup.store();
      await until(
        "every served request settled",
        // The 402s leave zero-cost rows of their own (merged per minute): only the served count.
        async () =>
          (await store.listRequests(poor.org, 1_000)).filter((r) => r.status === 200).length ===
            served,
        20_000,
      );
      const balance = (await store.getOrg(poor.org))!.balance_micro_eur;
      const bound = (PROCESSES - 1) * BALANCE + PROCESSES * INSTANCE_HOLD;
      assert.ok(balance > -bound, `balance ${balance} µEUR, bound −${bound} (served ${served})`);
      console.log(JSON.stringify({ measured: "fleet overdraw", served, balance, bound: -bound }));
    },
  );

  await t.step(
    "a key's budget: 1,000 concurrent requests spend at most N · (budget + h)",
    async () => {
      const statuses = await burst(
        1_000,
        (i, client) => instanceChat(urls[i % PROCESSES]!, capped, client, i % 4 >= 2),
      );
      assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 402), []);
      const served = statuses.filter((s) => s === 200).length;
      assert.ok(served > 0 && served < 1_000, `served ${served}`);
      const store = await setup.store();
      await until(
        "every served request settled",
        async () =>
          (await store.listRequests(capped.org, 1_000)).filter((r) => r.status === 200)
            .length === served,
        20_000,
      );
      const rows = await store.listRequests(capped.org, 1_000);
      assert.ok(
        rows.filter((r) => r.status === 402).every((r) => r.error_code === "key_budget_exceeded"),
      );
      const spent = Number(
        await store.readKeySpend(capped.keyId, budgetWindow("month", Date.now()).id),
      );
      assert.equal(
        spent,
        rows.reduce((sum, r) => sum + r.cost_micro_eur, 0),
        "the key's period spend is the sum of its requests' costs",
      );
      const bound = PROCESSES * (BUDGET + INSTANCE_HOLD);
      assert.ok(spent < bound, `spent ${spent} µEUR, bound ${bound} (served ${served})`);
      console.log(JSON.stringify({ measured: "fleet key budget", served, spent, bound }));
    },
  );
});
