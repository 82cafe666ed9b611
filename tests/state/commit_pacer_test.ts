/**
 * An admission record (an answer waits for it) is committed without waiting for the commit
 * interval; settles and plain rate increments still wait for it (issue 17 / issue 18).
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
