/**
 * A `soon` write (an admission record: its answer will wait for it) commits at once when the
 * committer is free; queued behind a commit in flight or another admission, it waits for the
 * next commit, which `hurry()` starts when an answer is ready first (issue 10's commit rate,
 * issue 17's guarantee unchanged).
 */
import assert from "node:assert/strict";
import { GroupCommitter } from "../../src/state/kv/group_commit.ts";
import { RequestAdmission } from "../../src/limits/admission.ts";
import { kvMeteringStore } from "../../src/state/kv/metering.ts";
import { chatRecord } from "../helpers/request_record.ts";

const INTERVAL_MS = 60_000;

function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms)),
  ]).finally(() => clearTimeout(timer));
}

const sum = (n: string) => ({ type: "sum" as const, key: ["n", n], value: 1n });

Deno.test("group commit — a soon write commits at once when the committer is free, also within the interval", async () => {
  const kv = await Deno.openKv(":memory:");
  const commits: number[] = [];
  const writer = new GroupCommitter(kv, INTERVAL_MS, (writes) => commits.push(writes));
  try {
    await writer.write([sum("first")], 64);
    // Nothing in flight, no admission queued: the interval since the first commit is not
    // waited for (5 s: a liveness bound, far below the 60 s interval).
    const settle = writer.write([sum("settle")], 64);
    const soon = writer.write([sum("soon")], 64, undefined, "soon");
    assert.equal(await settledWithin(soon, 5_000), true, "a soon write to a free committer");
    assert.equal(await settledWithin(settle, 5_000), true, "it takes the queued settle along");
    assert.deepEqual(commits, [1, 2]);
  } finally {
    await writer.close();
    kv.close();
  }
});

Deno.test("group commit — a soon write behind a commit in flight waits for the interval until hurried", async () => {
  const kv = await Deno.openKv(":memory:");
  const commits: number[] = [];
  const writer = new GroupCommitter(kv, INTERVAL_MS, (writes) => commits.push(writes));
  try {
    let queued: Promise<void>[] = [];
    await writer.write([sum("first")], 64, () => {
      // Queued while the first commit is in flight.
      queued = [
        writer.write([sum("a")], 64, undefined, "soon"),
        writer.write([sum("b")], 64, undefined, "soon"),
      ];
    });
    assert.equal(queued.length, 2);
    assert.equal(await settledWithin(queued[0]!, 300), false, "it waits for the next commit");
    // Another admission behind queued ones waits with them, the committer being free or not.
    const c = writer.write([sum("c")], 64, undefined, "soon");
    assert.equal(await settledWithin(c, 300), false, "it joins the queued admissions");
    writer.hurry();
    assert.equal(await settledWithin(Promise.all([...queued, c]), 5_000), true, "hurried");
    assert.deepEqual(commits, [1, 3], "the three share one commit");
    // Nothing queued: a hurry does not make the next plain write skip the interval.
    writer.hurry();
    const plain = writer.write([sum("plain")], 64);
    assert.equal(await settledWithin(plain, 300), false, "a stale hurry is not kept");
  } finally {
    writer.hurry();
    await writer.close();
    kv.close();
  }
});

Deno.test("admission — an answer that waits for an admission record still queued hurries its commit; one already sent does not", async () => {
  const kv = await Deno.openKv(":memory:");
  const writer = new GroupCommitter(kv, INTERVAL_MS);
  const store = kvMeteringStore(kv, writer);
  let hurried = 0;
  const counted = { ...store, hurry: () => (hurried++, store.hurry!()) };
  const admission = (id: string, markSent = () => {}) =>
    new RequestAdmission({
      gate: undefined as never, // unbilled: nothing held
      store: counted,
      instance: "inst_a",
      requestId: id,
      keyId: "key_a",
      org: "org_a",
      minute: 1,
      billed: false,
      markSent,
      refusal: () => new Error("refused"),
      onWriteError: (error) => {
        throw error;
      },
    });
  try {
    let handedOver!: () => void;
    const sent = new Promise<void>((resolve) => handedOver = resolve);
    const first = admission("req_1", () => handedOver());
    // The first goes out at once (the committer is free); the second is admitted while it is
    // in flight, so it is queued for the next commit.
    first.admit({ holdMicroEur: 0n, recovery: chatRecord("org_a", Date.now()) });
    await sent;
    assert.equal(first.isDurable(), false);
    const firstDurable = first.durable();
    const second = admission("req_2");
    second.admit({ holdMicroEur: 0n, recovery: chatRecord("org_a", Date.now() + 1) });
    assert.equal(await settledWithin(firstDurable, 5_000), true);
    assert.equal(hurried, 0, "the first was already handed to KV when its answer waited");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(second.isDurable(), false, "the second waits for the next commit");
    // Its answer is ready: it waits, and that starts the commit.
    assert.equal(await settledWithin(second.durable(), 5_000), true);
    assert.equal(hurried, 1);
    assert.equal(second.isDurable(), true);
    const rows = await Array.fromAsync(kv.list({ prefix: ["admission"] }));
    assert.equal(rows.length, 2, "each record is durable in its own commit's row");
  } finally {
    await writer.close();
    kv.close();
  }
});
