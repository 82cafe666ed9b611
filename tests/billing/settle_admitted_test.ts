/**
 * A settle written in its admission's commit (`Settler.settleAdmitted`): its debit counts for the
 * gate from the moment the hold goes until the store has it, and what happens when that commit
 * fails depends on whether the answer went out — written again like any settle when it did (the
 * breaker let the answer go while the store was away), not written at all when the client got the
 * store's 500 instead (the caller writes that failure's row).
 */
import assert from "node:assert/strict";
import { type SettleInput, Settler } from "../../src/billing/settle.ts";
import { UnsentTally } from "../../src/limits/unsent_tally.ts";
import { CreditHolds } from "../../src/limits/credit_holds.ts";
import { createLogger } from "../../src/log.ts";
import type { Model } from "../../src/catalog/schema.ts";
import type { Store } from "../../src/state/store.ts";
import type { RequestRecord } from "../../src/state/records.ts";
import { until } from "../helpers/until.ts";

const MODEL = {
  pricing: { prompt_micro_eur_per_million: 1_000_000, completion_micro_eur_per_million: 3_000_000 },
} as Model;

const input: SettleInput = {
  id: "req_folded",
  startedAt: Date.now(),
  org: "org_1",
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

/** A store whose admission commit fails once `fail()` is called; the settles written later. */
function failingStore(answerable: "with the write" | "released") {
  let fail!: (error: unknown) => void;
  const written = new Promise<void>((_, reject) => fail = reject);
  const settles: RequestRecord[] = [];
  const store: Pick<Store, "settle" | "settleAdmitted"> = {
    settle(record) {
      settles.push(record);
      return Promise.resolve();
    },
    settleAdmitted: () => ({
      written,
      // Released: the breaker holds the store for away and lets the answer go at once.
      answerable: answerable === "released" ? Promise.resolve() : written,
    }),
  };
  return { store, settles, fail: () => fail(new Error("The store refused the commit.")) };
}

function settlerOn(store: Pick<Store, "settle" | "settleAdmitted">) {
  const unsent = new UnsentTally();
  const holds = new CreditHolds();
  holds.hold(input.id, input.org, 10_000n);
  const lines: string[] = [];
  const log = createLogger("info", (line) => lines.push(JSON.parse(line).msg));
  const settler = new Settler(store, log, unsent, undefined, holds, [10]);
  return {
    settler,
    holds,
    /** Whether a retry of the settle was scheduled (logged when it is). */
    retried: () => lines.includes("settle failed; retrying"),
    /** The debits the gate adds to a store read made now. */
    counted: () => unsent.unsentCount(input.org, unsent.sentCount(input.org)),
  };
}

Deno.test("Settler.settleAdmitted — the debit counts from the hold's release on; answered, a failed commit is written again", async () => {
  const s = failingStore("released");
  const t = settlerOn(s.store);
  const settle = t.settler.settleAdmitted(input)!;
  assert.ok(settle, "the store took the settle into the admission's write");
  assert.equal(t.holds.open, 0, "the hold went");
  assert.equal(t.counted(), 4_000, "its debit counts instead, not neither");
  await settle.answerable;
  settle.answered();
  s.fail();
  await until("the settle written again", () => Promise.resolve(s.settles.length === 1));
  assert.equal(t.retried(), true);
  assert.deepEqual(s.settles[0], settle.record, "the same record, billed once when it lands");
  await t.settler.idle();
  t.settler.stopRetries();
});

Deno.test("Settler.settleAdmitted — abandoned (the client got the store's 500), a failed commit is not written again and stops counting", async () => {
  const s = failingStore("with the write");
  const t = settlerOn(s.store);
  const settle = t.settler.settleAdmitted(input)!;
  s.fail();
  await assert.rejects(settle.answerable);
  // Until the caller says how the request ends, the debit still counts.
  assert.equal(t.counted(), 4_000);
  settle.abandoned();
  await t.settler.idle();
  assert.equal(t.retried(), false, "not written again: the failure's own row takes its place");
  assert.equal(s.settles.length, 0);
  assert.equal(t.counted(), 0, "the debit no longer counts");
  t.settler.stopRetries();
});

Deno.test("Settler.settleAdmitted — a commit that failed before the answer was let go is written again once answered", async () => {
  const s = failingStore("released");
  const t = settlerOn(s.store);
  const settle = t.settler.settleAdmitted(input)!;
  s.fail();
  await t.settler.idle();
  assert.equal(t.counted(), 4_000, "undecided: still counted");
  assert.equal(t.retried(), false, "undecided: not written again yet");
  settle.answered();
  await until("the settle written again", () => Promise.resolve(s.settles.length === 1));
  t.settler.stopRetries();
});

Deno.test("Settler.settleAdmitted — undefined when the store has no queued admission to carry it; nothing queued or released", () => {
  const store: Pick<Store, "settle" | "settleAdmitted"> = {
    settle: () => Promise.resolve(),
    settleAdmitted: () => undefined,
  };
  const t = settlerOn(store);
  assert.equal(t.settler.settleAdmitted(input), undefined);
  assert.equal(t.holds.open, 1, "the hold stays for the settle that follows");
  assert.equal(t.counted(), 0);
});
