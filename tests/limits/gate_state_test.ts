import assert from "node:assert/strict";
import { GateState as Gate, rateName } from "../../src/limits/gate_state.ts";
import { UnsentTally } from "../../src/limits/unsent_tally.ts";
import { CreditHolds } from "../../src/limits/credit_holds.ts";
import type { GateSnapshot } from "../../src/state/records.ts";
import { SharedTable } from "../../src/limits/shared_table.ts";
import { SharedCounters } from "../../src/limits/shared_counters.ts";
import { decideRate } from "../../src/limits/rate_limiter.ts";

/** `view` after `snapshot`, as the gate middleware does. */
class GateState extends Gate {
  async viewAt(keyId: string, orgId: string, minute: number, now: number) {
    return this.view(await this.snapshot(keyId, orgId, minute, now), keyId, orgId);
  }
}

/** A store whose values the test sets; counts reads. */
function fakeStore(initial: GateSnapshot) {
  const state = { ...initial, reads: 0 };
  return {
    state,
    readGate(_key: string, _org: string, _minute: number): Promise<GateSnapshot> {
      state.reads++;
      return Promise.resolve({
        rateCurrent: state.rateCurrent,
        ratePrevious: state.ratePrevious,
        balanceMicroEur: state.balanceMicroEur,
      });
    },
  };
}

Deno.test("UnsentTally — a read sees sent amounts; the rest are added from memory", () => {
  const tally = new UnsentTally();
  const sentA = tally.queue("k", 1n, 0);
  const markBeforeSend = tally.sentMark("k");
  sentA();
  const markAfterSend = tally.sentMark("k");
  tally.queue("k", 1n, 0); // queued while a read is in flight
  assert.equal(tally.unsentSince("k", markBeforeSend), 2n);
  assert.equal(tally.unsentSince("k", markAfterSend), 1n);
  assert.equal(tally.unsentSince("other", 0n), 0n);
});

Deno.test("GateState — reads the store about once per refresh period per key", async () => {
  const store = fakeStore({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 100n });
  const gate = new GateState(store, new UnsentTally(), new UnsentTally(), 1000);
  await gate.viewAt("k", "o", 5, 300_000);
  await gate.viewAt("k", "o", 5, 300_500);
  assert.equal(store.state.reads, 1);
  await gate.viewAt("k", "o", 5, 301_000); // period over
  assert.equal(store.state.reads, 2);
  await gate.viewAt("k", "o", 6, 301_100); // new minute
  assert.equal(store.state.reads, 3);
});

Deno.test("GateState — this instance's requests and debits count at once, without a read", async () => {
  const store = fakeStore({ rateCurrent: 2, ratePrevious: 4, balanceMicroEur: 100n });
  const requests = new UnsentTally();
  const debits = new UnsentTally();
  const gate = new GateState(store, requests, debits, 1000);
  assert.deepEqual(await gate.viewAt("k", "o", 5, 0), {
    rateCurrent: 2,
    ratePrevious: 4,
    balanceMicroEur: 100n,
  });
  const sent = requests.queue(rateName("k", 5), 1n, 0);
  debits.queue("o", 30n, 0);
  sent(); // sent after the snapshot: still not in it
  const view = await gate.viewAt("k", "o", 5, 10);
  assert.equal(view.rateCurrent, 3);
  assert.equal(view.balanceMicroEur, 70n);
  assert.equal(store.state.reads, 1);
});

Deno.test("GateState — a used-up balance is re-read, so a top-up applies at once", async () => {
  const store = fakeStore({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 10n });
  const debits = new UnsentTally();
  const gate = new GateState(store, new UnsentTally(), debits, 60_000);
  await gate.viewAt("k", "o", 5, 0);
  const sent = debits.queue("o", 10n, 0);
  sent();
  store.state.balanceMicroEur = 0n; // the debit landed in the store
  assert.equal((await gate.viewAt("k", "o", 5, 1)).balanceMicroEur, 0n);
  store.state.balanceMicroEur = 500n; // a top-up by another process
  assert.equal((await gate.viewAt("k", "o", 5, 2)).balanceMicroEur, 500n);
});

Deno.test("GateState — near its end a snapshot is renewed in the background; no request waits for that read", async () => {
  const store = fakeStore({ rateCurrent: 1, ratePrevious: 0, balanceMicroEur: 100n });
  let release: (() => void) | undefined;
  let started = 0;
  const gated = {
    readGate(key: string, org: string, minute: number): Promise<GateSnapshot> {
      started++;
      if (store.state.reads === 0) return store.readGate(key, org, minute);
      // Later reads hang until the test releases them.
      return new Promise((resolve) => {
        release = () => resolve(store.readGate(key, org, minute));
      });
    },
  };
  const gate = new GateState(gated, new UnsentTally(), new UnsentTally(), 1000);
  await gate.viewAt("k", "o", 5, 0);
  store.state.rateCurrent = 7; // another instance's requests
  // 95 % of the period: past any renewal point (60–90 %), before expiry.
  const view = await gate.viewAt("k", "o", 5, 950);
  assert.equal(view.rateCurrent, 1, "served from the current snapshot while the read runs");
  assert.ok(release, "the background read started");
  await gate.viewAt("k", "o", 5, 960); // shares the read in flight: no second one
  release();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal((await gate.viewAt("k", "o", 5, 970)).rateCurrent, 7);
  assert.equal(started, 2);
});

Deno.test("GateState — credit left is exact beyond 2^53 micro-EUR, and a hold refuses exactly when nothing is left", async () => {
  const huge = 2n ** 60n + 7n;
  const store = fakeStore({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: huge });
  const debits = new UnsentTally();
  const holds = new CreditHolds();
  const gate = new GateState(store, new UnsentTally(), debits, 60_000, 0, holds);
  await gate.viewAt("k", "o", 5, 0);
  debits.queue("o", 5, 0);
  holds.hold("req_a", "o", 1n);
  assert.equal((await gate.viewAt("k", "o", 5, 1)).balanceMicroEur, 2n ** 60n + 1n);
  holds.release("req_a");

  store.state.balanceMicroEur = 100n;
  const small = new GateState(store, new UnsentTally(), debits, 60_000, 0, new CreditHolds());
  await small.viewAt("k", "o", 5, 0); // 5 unsent: 95 left
  assert.equal(small.tryHold("k", "o", "req_1", 60n), true);
  assert.equal(small.tryHold("k", "o", "req_2", 34n), true, "35 left: admitted");
  assert.equal(small.tryHold("k", "o", "req_9", 1n), true, "1 left: admitted");
  small.holds.release("req_9");
  assert.equal(small.tryHold("k", "o", "req_2", 35n), true, "its own hold does not count");
  assert.equal(small.tryHold("k", "o", "req_3", 1n), false, "0 left: refused");
  assert.equal((await small.viewAt("k", "o", 5, 1)).balanceMicroEur, 0n);
  assert.equal(small.holds.total, 95n);
  small.holds.release("req_1");
  assert.equal(small.tryHold("k", "o", "req_3", 1n), true);
  assert.equal(small.holds.heldBy("o"), 36n);
  assert.equal(small.holds.open, 2);
});

Deno.test("UnsentTally — the counts as numbers agree with the bigint marks", () => {
  const tally = new UnsentTally();
  const sent = tally.queue("o", 7, 0);
  tally.queue("o", 3n, 0);
  const mark = tally.sentCount("o");
  assert.equal(mark, 0);
  sent();
  sent(); // once only
  assert.equal(tally.sentCount("o"), 7);
  assert.equal(tally.sentMark("o"), 7n);
  assert.equal(tally.unsentCount("o", mark), 10);
  assert.equal(tally.unsentSince("o", 7n), 3n);
  assert.equal(tally.unsentCount("none", 0), 0);
});

Deno.test("GateState — holds beyond 2^53 micro-EUR add and release exactly: no credit appears or vanishes", async () => {
  // A hold is the most a request may cost: a client's `max_tokens` (× `n`) on a model without
  // a context length makes it as large as it likes. Beside it, other requests' small holds must
  // not be rounded away: released, every hold leaves exactly nothing held.
  const store = fakeStore({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 1_000n });
  const holds = new CreditHolds();
  const gate = new GateState(store, new UnsentTally(), new UnsentTally(), 60_000, 0, holds);
  await gate.viewAt("k", "o", 5, 0);
  const huge = 2n ** 60n + 1n;
  for (const order of [["big", "small"], ["small", "big"]]) {
    assert.equal(gate.tryHold("k", "o", "small", 100n), true);
    assert.equal(gate.tryHold("k", "o", "big", huge), true, "900 left: admitted");
    assert.equal(holds.heldBy("o"), huge + 100n, `${order}: held, exactly`);
    assert.equal(holds.total, huge + 100n);
    for (const id of order) holds.release(id);
    assert.equal(holds.heldBy("o"), 0n, `${order}: all released`);
    assert.equal(holds.total, 0n);
    assert.equal((await gate.viewAt("k", "o", 5, 1)).balanceMicroEur, 1_000n, `${order}: view`);
  }
  // Spent to the last micro-EUR, the org is refused: no rounding residue lets a request through.
  assert.equal(gate.tryHold("k", "o", "a", 1_000n), true);
  assert.equal(gate.tryHold("k", "o", "b", 1n), false);
});

Deno.test("UnsentTally — totals beyond 2^53 stay exact: a small debit after a huge one is not rounded away", () => {
  const tally = new UnsentTally();
  tally.queue("o", 2n ** 60n + 1n, 0)();
  const mark = tally.sentCount("o");
  tally.queue("o", 1, 0);
  assert.equal(tally.unsentCount("o", mark), 1);
  assert.equal(tally.unsentSince("o", tally.sentMark("o")), 1n);
  assert.equal(tally.sentMark("o"), 2n ** 60n + 1n);
});

Deno.test("GateState — while the store is away, the last snapshot (within the stale bound) serves without a read; the rate fails open", async () => {
  const store = Object.assign(
    fakeStore({ rateCurrent: 3, ratePrevious: 0, balanceMicroEur: 100n }),
    { isAway: false, away: () => store.isAway },
  );
  const gate = new GateState(store, new UnsentTally(), new UnsentTally(), 1000, 60_000);
  await gate.viewAt("k", "o", 5, 0);
  store.isAway = true;
  // Expired, then a new minute: no read either time, the balance kept, the rate not counted.
  assert.deepEqual(await gate.viewAt("k", "o", 5, 5_000), {
    rateCurrent: 0,
    ratePrevious: 0,
    balanceMicroEur: 100n,
  });
  await gate.viewAt("k", "o", 6, 30_000);
  assert.equal(store.state.reads, 1, "no call to an absent store");
  await gate.viewAt("other", "o", 6, 30_000);
  assert.equal(store.state.reads, 2, "no snapshot to serve: the store is tried");
  await gate.viewAt("k", "o", 6, 61_000);
  assert.equal(store.state.reads, 3, "past the stale bound: the store is tried");
  store.isAway = false;
  await gate.viewAt("other", "o", 6, 62_000);
  assert.equal(store.state.reads, 4, "back: an expired snapshot is read again");
});

Deno.test("GateState — two isolates deciding on one count: the second's increment is refused, it decides again and sees the first", async () => {
  const table = SharedTable.create(8);
  const isolate = (counters: SharedCounters) => {
    const requests = new UnsentTally(counters);
    const store = fakeStore({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 100n });
    const gate = new GateState(
      store,
      requests,
      new UnsentTally(counters),
      1000,
      0,
      undefined,
      counters,
    );
    return { gate, requests };
  };
  const a = isolate(new SharedCounters(table, 60_000));
  const b = isolate(new SharedCounters(SharedTable.attach(table.buffer), 60_000));
  const rpm = 1;
  const bucket = rateName("k", 5);
  // Both take their view before either counts: each alone would admit (count 0 of rpm 1).
  const viewA = await a.gate.viewAt("k", "o", 5, 300_000);
  const viewB = await b.gate.viewAt("k", "o", 5, 300_000);
  assert.equal(decideRate(rpm, viewA.rateCurrent, viewA.ratePrevious, 300_000).allowed, true);
  assert.equal(decideRate(rpm, viewB.rateCurrent, viewB.ratePrevious, 300_000).allowed, true);
  assert.ok(a.requests.queueIfUnchanged(bucket, 1, 300_000, "k", viewA.rateSeen));
  assert.equal(
    b.requests.queueIfUnchanged(bucket, 1, 300_000, "k", viewB.rateSeen),
    undefined,
    "b's count is stale: nothing counted",
  );
  const again = await b.gate.viewAt("k", "o", 5, 300_000);
  assert.equal(again.rateCurrent, 1, "b now counts a's request");
  assert.equal(decideRate(rpm, again.rateCurrent, again.ratePrevious, 300_000).allowed, false);
  // Without a change in between, the increment counts.
  assert.ok(
    b.requests.queueIfUnchanged(
      rateName("k2", 5),
      1,
      300_000,
      "k2",
      (await b.gate.viewAt("k2", "o", 5, 300_000)).rateSeen,
    ),
  );
});
