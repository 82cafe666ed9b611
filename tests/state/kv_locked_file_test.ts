/**
 * The KV file write-locked by another process for longer than any request should take (the
 * issue: 25 s, every answer stopped for the lock's whole length; here 6 s). The gateway
 * degrades as it does through a database outage: requests are answered within a deadline far
 * below the lock's length (cached keys, the last gate snapshots, the admission commit not waited
 * for once the store is taken for away), `/healthz` says `degraded` while the lock holds and
 * `ok` after, and every answered request is billed once at its real cost when the lock goes.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startInstances } from "../helpers/instances.ts";
import { startLoad } from "../helpers/load.ts";
import { until } from "../helpers/until.ts";
import { costMicroEur } from "../../src/billing/cost.ts";
import type { KvStore } from "../../src/state/kv/kv_store.ts";
import { kvKeys } from "../../src/state/kv/kv_keys.ts";
import type { RequestRecord } from "../../src/state/records.ts";

const PRICING = {
  prompt_micro_eur_per_million: 1_000_000,
  completion_micro_eur_per_million: 3_000_000,
};
const LOCK_MS = 6_000;
const REQUEST_DEADLINE_MS = 3_000;

async function healthOf(url: string): Promise<string> {
  const client = Deno.createHttpClient({});
  try {
    return (await (await fetch(`${url}/healthz`, { client })).json()).status;
  } finally {
    client.close();
  }
}

Deno.test("KV file write-locked by another process — served within a deadline, degraded, then billed exactly", async () => {
  await using setup = await startInstances({
    models: [chatModel("acme/chat", "sim-chat", { pricing: PRICING })],
    accounts: [{ credits: 1_000_000_000 }],
  });
  const [payer] = setup.accounts;
  const { url } = await setup.start({ SOVRA_WORKERS: "2" });
  const load = startLoad(url, payer!.key, { deadlineMs: REQUEST_DEADLINE_MS });
  await until("answers before the lock", () => load.answered.length >= 20, 20_000);

  const locker = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./fixtures/kv_file_locker.ts", import.meta.url).pathname,
      `${setup.dir}/sovra.kv`,
      String(LOCK_MS),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = locker.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await lines.read()).value?.trim(), "locked");
  const before = load.answered.length;
  const seen = new Set<string>();
  let unlocked = false;
  const released = lines.read().then(() => unlocked = true);
  while (!unlocked) {
    seen.add(await healthOf(url));
    await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 200))]);
  }
  const servedWhileLocked = load.answered.length - before;
  await locker.status;
  // Seconds, not minutes; generous for a loaded machine (latency is the bench's job).
  await until("healthz ok again", async () => (await healthOf(url)) === "ok", 30_000);
  const answered = await load.stop();
  assert.deepEqual(load.failures, [], "every request answered 200 within the deadline");
  assert.ok(servedWhileLocked > 0, "requests served while the file was locked");
  assert.ok(seen.has("degraded"), `/healthz while locked: ${[...seen].join(", ")}`);

  const store = await setup.store() as KvStore;
  const listed = async () => {
    const rows: RequestRecord[] = [];
    const entries = store.kv.list<RequestRecord>({ prefix: kvKeys.requestPrefix(payer!.org) });
    for await (const entry of entries) rows.push(entry.value);
    return rows;
  };
  await until(
    "every answered request recorded",
    async () => (await listed()).length >= answered.length,
    20_000,
  ).catch(() => {});
  const rows = await listed();
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.equal(rows.length, answered.length, "one row per answered request, no other");
  let cost = 0;
  const wrong: string[] = [];
  for (const a of answered) {
    const record = byId.get(a.id);
    const expected = costMicroEur(PRICING, {
      promptTokens: a.promptTokens,
      completionTokens: a.completionTokens,
    });
    if (!record || record.status !== 200 || record.cost_micro_eur !== expected) {
      wrong.push(`${a.id}: ${JSON.stringify(record)}`);
    }
    cost += expected;
  }
  assert.deepEqual(wrong, [], "every answered request at its real cost and status");
  assert.equal((await store.getOrg(payer!.org))?.spent_micro_eur, cost);
  console.log(JSON.stringify({
    measured: "kv file locked",
    lock_ms: LOCK_MS,
    answered: answered.length,
    served_while_locked: servedWhileLocked,
  }));
});
