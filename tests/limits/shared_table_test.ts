/**
 * The process-wide limit table (`src/limits/shared_table.ts`, `shared_counters.ts`): names get
 * one slot each, whichever isolate asks first; a full bucket sends further names to the one
 * overflow slot (counted together: stricter, never looser); slots nobody pins, holding nothing
 * and with nothing pending, are reclaimed. Two `SharedCounters` over one buffer stand for two
 * isolates (the table is the same memory either way); a last test uses a real Web Worker.
 */
import assert from "node:assert/strict";
import { OVERFLOW_SLOT, SharedTable, WAYS } from "../../src/limits/shared_table.ts";
import { SharedCounters } from "../../src/limits/shared_counters.ts";
import { SharedSemaphore } from "../../src/limits/shared_semaphore.ts";

/** Two isolates' views of one table. */
function twoIsolates(buckets = 64) {
  const table = SharedTable.create(buckets);
  const a = new SharedCounters(table, 0);
  const b = new SharedCounters(SharedTable.attach(table.buffer), 0);
  return { table, a, b };
}

Deno.test("SharedTable — one name gets one slot, whichever isolate pins it first", () => {
  const { table } = twoIsolates();
  const other = SharedTable.attach(table.buffer);
  const first = table.pin("key_a");
  assert.notEqual(first, OVERFLOW_SLOT);
  assert.equal(other.pin("key_a"), first);
  assert.notEqual(table.pin("org_b"), first);
  assert.equal(table.used, 2);
});

Deno.test("SharedCounters — another isolate's queued amounts count as pending until visible", () => {
  const { a, b } = twoIsolates();
  // b takes its mark before its store read; a queues three increments and one becomes visible.
  const mark = b.othersVisible("key_1");
  const queued = a.queued("key_1", 3n);
  assert.equal(b.othersPending("key_1", mark), 3n);
  a.visible(queued, 1n);
  // Visible after b's mark: b's read may lack it, so it still counts (stricter).
  assert.equal(b.othersPending("key_1", mark), 3n);
  // A read issued now contains the visible one.
  assert.equal(b.othersPending("key_1", b.othersVisible("key_1")), 2n);
  // An isolate's own amounts are never "others'".
  assert.equal(a.othersPending("key_1", a.othersVisible("key_1")), 0n);
});

Deno.test("SharedCounters — tryHold decides against every isolate's holds at once", () => {
  const { a, b } = twoIsolates();
  const balance = 1_000n;
  const fits = (held: bigint) => balance - held > 0n;
  assert.equal(a.tryHold("org_1", 600n, fits), true);
  assert.equal(b.tryHold("org_1", 600n, fits), true, "400 left: a request is admitted");
  assert.equal(b.held("org_1"), 1_200n);
  assert.equal(a.tryHold("org_1", 1n, fits), false, "nothing left after both holds");
  a.release("org_1", 600n);
  assert.equal(b.held("org_1"), 600n);
  assert.equal(a.tryHold("org_1", 1n, fits), true);
});

Deno.test("SharedTable — a full bucket sends further names to the overflow slot, counted together", () => {
  // One bucket: WAYS names fit, the next ones overflow.
  const table = SharedTable.create(1);
  const overflowed: number[] = [];
  const a = new SharedCounters(table, 0, (bucket) => overflowed.push(bucket));
  const b = new SharedCounters(SharedTable.attach(table.buffer), 0);
  for (let i = 0; i < WAYS; i++) assert.equal(a.overflowed(`key_${i}`), false);
  assert.equal(a.overflowed("key_x"), true);
  assert.equal(a.overflowed("key_y"), true);
  assert.deepEqual(overflowed, [0], "told once per bucket");
  // The other isolate finds the same names in the same places.
  assert.equal(b.overflowed("key_x"), true);
  assert.equal(b.overflowed("key_0"), false);
  // Overflowed names add up: x's pending includes y's (stricter), never less than its own.
  const mark = b.othersVisible("key_x");
  a.queued("key_x", 2n);
  a.queued("key_y", 5n);
  assert.equal(b.othersPending("key_x", mark), 7n);
  a.hold("key_y", 10n);
  assert.equal(b.held("key_x"), 10n);
});

Deno.test("SharedTable — reclaims slots nobody pins with nothing held or pending; a pinned one stays", () => {
  const table = SharedTable.create(1);
  const a = new SharedCounters(table, 0);
  a.visible(a.queued("key_done", 4n), 4n);
  const pending = a.queued("key_pending", 1n);
  a.hold("org_held", 5n);
  assert.equal(table.used, 3);
  // Unused for `evictAfterMs` (0 here) and idle in this isolate: unpinned, then reclaimed.
  a.sweep(true);
  a.sweep(true);
  assert.equal(table.used, 2, "the pending and the held names stay");
  assert.equal(a.cached, 2);
  a.visible(pending, 1n);
  a.release("org_held", 5n);
  a.sweep(true);
  a.sweep(true);
  assert.equal(table.used, 0);
  // Another isolate pinning a name keeps it although this one let it go.
  const b = new SharedCounters(SharedTable.attach(table.buffer), 60_000);
  b.visible(b.queued("key_kept", 1n), 1n);
  table.reclaim();
  assert.equal(table.used, 1);
  // A freed slot's counters start from zero for the next name.
  a.queued("key_new", 1n);
  assert.equal(b.othersPending("key_new", 0n), 1n);
});

Deno.test("SharedSemaphore — a Web Worker and this isolate share the slots; a release wakes the waiter", async () => {
  const table = SharedTable.create(1);
  const slots = new SharedSemaphore(table.words, 2);
  const worker = new Worker(
    new URL("./fixtures/semaphore_worker.ts", import.meta.url),
    { type: "module" },
  );
  try {
    const replies: string[] = [];
    const next = () =>
      new Promise<string>((resolve) => {
        worker.onmessage = (e: MessageEvent<string>) => {
          replies.push(e.data);
          resolve(e.data);
        };
      });
    assert.equal(slots.tryAcquire(), true);
    let reply = next();
    worker.postMessage({ buffer: table.buffer, max: 2, op: "acquire" });
    assert.equal(await reply, "acquired", "the second slot, in the worker");
    assert.equal(slots.tryAcquire(), false, "both slots taken across the two isolates");
    reply = next();
    worker.postMessage({ op: "wait" });
    assert.equal(await reply, "waiting");
    reply = next();
    slots.release();
    assert.equal(await reply, "acquired", "the worker took the slot this isolate freed");
    assert.equal(slots.taken, 2);
  } finally {
    worker.terminate();
  }
});
