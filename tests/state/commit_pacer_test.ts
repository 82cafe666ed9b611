/**
 * An admission record (an answer waits for it) is committed without waiting for the commit
 * interval; settles and plain rate increments still wait for it, also after the committer went
 * idle.
 */
import assert from "node:assert/strict";
import { GroupCommitter } from "../../src/state/kv/group_commit.ts";

const INTERVAL_MS = 60_000;

function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms)),
  ]).finally(() => clearTimeout(timer));
}

Deno.test("group commit — an urgent write skips the commit interval; others wait for it", async () => {
  const kv = await Deno.openKv(":memory:");
  const writer = new GroupCommitter(kv, INTERVAL_MS);
  try {
    const sum = (n: string) => ({ type: "sum" as const, key: ["n", n], value: 1n });
    // Queued while the first commit is in flight: the next commit waits for the interval.
    let plain: Promise<void> | undefined;
    await writer.write([sum("first")], 64, () => {
      plain = writer.write([sum("plain")], 64);
    });
    assert.ok(plain);
    assert.equal(await settledWithin(plain, 300), false, "a plain write waits for the interval");
    // 5 s: a liveness bound, far below the 60 s interval the plain write would wait for.
    const urgent = writer.write([sum("urgent")], 64, undefined, true);
    assert.equal(await settledWithin(urgent, 5_000), true, "an urgent write goes out at once");
    // It took the queued plain write with it.
    assert.equal(await settledWithin(plain, 5_000), true);
    assert.equal((await kv.get<Deno.KvU64>(["n", "plain"])).value?.value, 1n);
  } finally {
    await writer.close();
    kv.close();
  }
});

Deno.test("group commit — a plain write after the committer went idle waits for the rest of the interval and shares the next commit", async () => {
  const kv = await Deno.openKv(":memory:");
  const commits: number[] = [];
  const writer = new GroupCommitter(kv, INTERVAL_MS, (writes) => commits.push(writes));
  try {
    const sum = (n: string) => ({ type: "sum" as const, key: ["n", n], value: 1n });
    await writer.write([sum("first")], 64);
    // Nothing queued or in flight now: before, the next write started a commit of its own at
    // once (a request's settle, 1 ms after its admission, cost one more commit each).
    const settle = writer.write([sum("settle")], 64);
    assert.equal(await settledWithin(settle, 300), false, "a plain write waits for the interval");
    // The next urgent write takes it along: one commit for both.
    await writer.write([sum("admission")], 64, undefined, true);
    assert.equal(await settledWithin(settle, 5_000), true);
    assert.deepEqual(commits, [1, 2]);
    assert.equal((await kv.get<Deno.KvU64>(["n", "settle"])).value?.value, 1n);
  } finally {
    await writer.close();
    kv.close();
  }
});

Deno.test("group commit — hurry() sends a queued deferred write without the interval; with nothing queued it changes nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const commits: number[] = [];
  const writer = new GroupCommitter(kv, INTERVAL_MS, (writes) => commits.push(writes));
  try {
    const sum = (n: string) => ({ type: "sum" as const, key: ["n", n], value: 1n });
    // Idle and nothing queued: hurry leaves no urgency behind for the next plain write.
    writer.hurry();
    await writer.write([sum("first")], 64);
    writer.hurry();
    const deferred = writer.write([sum("deferred")], 64);
    assert.equal(await settledWithin(deferred, 300), false, "a deferred write waits");
    // An answer is waiting for it now (5 s: a liveness bound far below the 60 s interval).
    writer.hurry();
    assert.equal(await settledWithin(deferred, 5_000), true, "hurry sends it at once");
    assert.deepEqual(commits, [1, 1]);
    assert.equal((await kv.get<Deno.KvU64>(["n", "deferred"])).value?.value, 1n);
  } finally {
    await writer.close();
    kv.close();
  }
});

Deno.test("group commit — hurry() for a write already in flight leaves no urgency for the next plain write", async () => {
  const kv = await Deno.openKv(":memory:");
  const writer = new GroupCommitter(kv, INTERVAL_MS);
  try {
    const sum = (n: string) => ({ type: "sum" as const, key: ["n", n], value: 1n });
    // Hurried from its own onSent: the commit carrying it is on its way, nothing else queued.
    await writer.write([sum("first")], 64, () => writer.hurry());
    const plain = writer.write([sum("plain")], 64);
    assert.equal(await settledWithin(plain, 300), false, "the next plain write still waits");
    writer.hurry();
    assert.equal(await settledWithin(plain, 5_000), true);
  } finally {
    await writer.close();
    kv.close();
  }
});
