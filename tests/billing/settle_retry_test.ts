/**
 * A settle the store refuses is written again later (billing/settle.ts): the request is billed
 * once, exactly, while the process lives, instead of waiting for the next start's recovery to
 * bill its estimate; meanwhile the gate still counts its debit. After the last retry, or at
 * shutdown, it is left to admission recovery as before.
 */
import assert from "node:assert/strict";
import { openTestStore } from "../helpers/kv.ts";
import { type SettleInput, Settler } from "../../src/billing/settle.ts";
import { UnsentTally } from "../../src/limits/unsent_tally.ts";
import { createLogger } from "../../src/log.ts";
import type { Model } from "../../src/catalog/schema.ts";
import { until } from "../helpers/until.ts";

const MODEL = {
  pricing: { prompt_micro_eur_per_million: 1_000_000, completion_micro_eur_per_million: 3_000_000 },
} as Model;

/** A real KV store whose first `failures` settles are refused; the log lines; a Settler. */
async function refusing(failures: number, delays: number[]) {
  const store = await openTestStore();
  const org = (await store.createOrg(
    { id: "org_retry", name: "acme", created: new Date().toISOString() },
    1_000_000n,
  )).id;
  let calls = 0;
  const settle = store.settle.bind(store);
  store.settle = (record, onSent) => {
    calls++;
    return calls <= failures ? Promise.reject(new Error("disk full")) : settle(record, onSent);
  };
  const lines: Array<{ msg: string; [field: string]: unknown }> = [];
  const log = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const unsent = new UnsentTally();
  const settler = new Settler(store, log, unsent, undefined, undefined, delays);
  const input = inputFor(org);
  return {
    store,
    org,
    settler,
    lines,
    input,
    calls: () => calls,
    /** What the gate adds to a store read made now: debits this instance has not sent. */
    unsentNow: () => unsent.unsentCount(org, unsent.sentCount(org)),
    async [Symbol.asyncDispose]() {
      settler.stopRetries();
      await store[Symbol.asyncDispose]();
    },
  };
}

function inputFor(org: string): SettleInput {
  return {
    id: "req_retry",
    startedAt: Date.now(),
    org,
    keyId: "key_1",
    user: undefined,
    endpoint: "chat",
    requestedModel: "acme/chat",
    model: MODEL,
    servedModel: "acme/chat",
    provider: "sim",
    status: 200,
    stream: false,
    fallbacks: 0,
    promptTokens: 1_000,
    completionTokens: 1_000,
    estimated: false,
  };
}

Deno.test("Settler — a refused settle is written again: billed once, exactly, and counted by the gate meanwhile", async () => {
  await using r = await refusing(2, [20, 20, 20]);
  const record = await r.settler.settle(r.input);
  assert.ok(record);
  assert.equal(record.cost_micro_eur, 4_000); // 1,000 × 1 + 1,000 × 3 micro-EUR
  assert.equal(r.unsentNow(), 4_000, "the refused debit still counts for the gate");
  await until("the record", async () => (await r.store.listRequests(r.org, 10)).length > 0);
  await r.store.flushed();
  assert.equal(r.calls(), 3);
  const rows = await r.store.listRequests(r.org, 10);
  assert.deepEqual(rows.map((row) => [row.id, row.cost_micro_eur]), [["req_retry", 4_000]]);
  assert.equal((await r.store.getOrg(r.org))!.balance_micro_eur, 996_000);
  assert.equal(r.unsentNow(), 0, "sent: the store's reads contain it now");
  assert.deepEqual(r.lines.map((l) => l.msg), [
    "settle failed; retrying",
    "settle failed; retrying",
    "settle retried",
  ]);
});

Deno.test("Settler — after the last retry, or at shutdown, a refused settle is left to admission recovery", async () => {
  {
    await using r = await refusing(Infinity, [5, 5]);
    await r.settler.settle(r.input);
    await until(
      "giving up",
      () => r.lines.some((l) => l.msg.includes("left to admission recovery")),
    );
    assert.equal(r.calls(), 3, "the first write and two retries");
    assert.equal(r.unsentNow(), 0);
    assert.equal((await r.store.listRequests(r.org, 10)).length, 0);
  }
  {
    await using r = await refusing(Infinity, [60_000]);
    await r.settler.settle(r.input);
    r.settler.stopRetries();
    assert.equal(r.calls(), 1);
    assert.deepEqual(r.lines.map((l) => [l.msg, l.reason]), [
      ["settle failed; retrying", "Error: disk full"],
      ["settle failed; left to admission recovery", "shutting down before its retry"],
    ]);
  }
});

Deno.test("Settler — a retry in flight at shutdown is waited for by idle(), and a refusal after stopRetries schedules nothing", async () => {
  let calls = 0;
  let refuse!: (error: Error) => void;
  const lines: Array<{ msg: string; [field: string]: unknown }> = [];
  const settler = new Settler(
    {
      settle: () => {
        calls++;
        if (calls === 1) return Promise.reject(new Error("disk full"));
        return new Promise<void>((_, reject) => refuse = reject);
      },
    },
    createLogger("info", (line) => lines.push(JSON.parse(line))),
    new UnsentTally(),
    undefined,
    undefined,
    [5, 60_000],
  );
  {
    const input = inputFor("org_retry");
    await settler.settle(input);
    await until("the first retry", () => calls === 2);
    let idle = false;
    const waited = settler.idle().then(() => idle = true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(idle, false, "idle() waits for the retry in flight");
    refuse(new Error("The store is closed."));
    await waited;
    assert.equal(lines.at(-1)?.msg, "settle failed; retrying", "its next attempt was scheduled");
    settler.stopRetries();
    assert.deepEqual(lines.at(-1), {
      ...lines.at(-1),
      msg: "settle failed; left to admission recovery",
      reason: "shutting down before its retry",
    });
    // A refusal that lands after stopRetries leaves the settle to recovery at once.
    const later = new Settler(
      { settle: () => Promise.reject(new Error("The store is closed.")) },
      createLogger("info", (line) => lines.push(JSON.parse(line))),
      new UnsentTally(),
      undefined,
      undefined,
      [5],
    );
    later.stopRetries();
    await later.settle(input);
    assert.equal(lines.at(-1)?.msg, "settle failed; left to admission recovery");
    assert.equal(lines.at(-1)?.reason, "Error: The store is closed.");
  }
});
