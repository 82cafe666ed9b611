/**
 * A fleet's bounds are per process, not per isolate (README "Running a fleet", docs/fleet.md):
 * two `deno task start` processes of two isolates each on one PostgreSQL database count as
 * N = 2 instances. A burst on one key is admitted at most N · rpm times; 1,000 concurrent
 * requests on a 10,000 µEUR balance overdraw at most (N − 1) · B + N · h (h: one request's
 * hold). Before the isolates shared their limits, each isolate was an instance of its own: the
 * issue measured rpm 20 → 60 and rpm 100 → 274 admitted, and −22,768 µEUR.
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

const PROCESSES = 2;
const BALANCE = 10_000;

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
    ],
    databaseUrl: await cluster.database(),
  });
  const [rpm20, rpm100, poor] = setup.accounts as [Account, Account, Account];
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
});
