/**
 * `mergeMutations` (src/state/kv/group_commit.ts): one group commit writes the merged mutations
 * of a batch as one atomic operation, and the store must end as if every mutation had been
 * written one by one, in order: sums add up (modulo 2^64, as KvU64 sums wrap), the last set or
 * delete of a row wins, and a row set and deleted within the batch is never written. Checked on
 * a real Deno KV for random batches over a small pool of keys (so sums merge and sets and
 * deletes meet), each key used as the gateway uses it: a counter (sums) or a row (sets, deletes).
 */
import assert from "node:assert/strict";
import { mergeMutations, type Mutation } from "../../src/state/kv/group_commit.ts";

const U64 = 1n << 64n;

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Counters: rate buckets, the spent counter, daily aggregates (only ever summed). */
const COUNTERS: Deno.KvKey[] = [
  ["rl", 29_000_000, "key_a"],
  ["rl", 29_000_001, "key_a"],
  ["rl", 29_000_000, "key_b"],
  ["credit", "org_a", "spent"],
  ["usage_day", "org_a", "2026-11-25", "requests"],
  ["usage_day", "org_b", "2026-11-25", "requests"],
  ["n", 1],
  ["n", "1"],
  ["n", new Uint8Array([1, 2])],
];

/** Rows: request and admission records (set and deleted). */
const ROWS: Deno.KvKey[] = [
  ["request", "org_a", "req_1"],
  ["request", "org_a", "req_2"],
  ["admission", "req_1"],
  ["admission", "req_2"],
  ["admission"],
  ["m", 1n],
  ["m", true],
  ["m", new Uint8Array([1, 2])],
];

async function contents(kv: Deno.Kv, prefix: Deno.KvKey) {
  const out: Array<[Deno.KvKey, unknown]> = [];
  for await (const e of kv.list({ prefix })) {
    const value = e.value instanceof Deno.KvU64 ? e.value.value : e.value;
    out.push([e.key.slice(prefix.length), value]);
  }
  return out;
}

Deno.test("mergeMutations — one atomic commit of the merge ends as the mutations one by one, on 400 random batches", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const next = random(20261125);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    let merged = 0;
    let cancelled = 0;
    for (let round = 0; round < 400; round++) {
      const mutation = (): Mutation => {
        // Fresh key arrays: nothing relies on two mutations sharing an array.
        if (next() < 0.5) {
          const value = next() < 0.1 ? U64 - 1n : BigInt(Math.floor(next() * 9));
          return { type: "sum", key: [...pick(COUNTERS)], value };
        }
        const key = [...pick(ROWS)];
        return next() < 0.6
          ? { type: "set", key, value: `${round}.${Math.floor(next() * 1e9)}` }
          : { type: "delete", key };
      };
      const batch = Array.from({ length: 1 + Math.floor(next() * 6) }, () => ({
        mutations: Array.from({ length: Math.floor(next() * 6) }, mutation),
      }));
      const extra = Array.from({ length: Math.floor(next() * 3) }, mutation);
      const all = [...batch.flatMap((p) => p.mutations), ...extra];

      const one: Deno.KvKey = ["one", round];
      for (const m of all) {
        const key = [...one, ...m.key];
        if (m.type === "sum") await kv.atomic().sum(key, m.value).commit();
        else if (m.type === "set") await kv.set(key, m.value);
        else await kv.delete(key);
      }
      const at: Deno.KvKey = ["merged", round];
      const result = mergeMutations(batch, extra);
      const op = kv.atomic();
      for (const [key, value] of result.sums) op.sum([...at, ...key], value);
      for (const m of result.sets) op.set([...at, ...m.key], m.value);
      for (const key of result.deletes) op.delete([...at, ...key]);
      assert.ok((await op.commit()).ok);

      assert.deepEqual(await contents(kv, at), await contents(kv, one), `round ${round}`);
      const keys = [
        ...result.sums.map(([key]) => key),
        ...result.sets.map((m) => m.key),
        ...result.deletes,
      ].map((key) => JSON.stringify(key, (_, v) => typeof v === "bigint" ? `${v}n` : v));
      assert.equal(new Set(keys).size, keys.length, "each key written once");
      if (keys.length < all.length) merged++;
      if (all.some((m) => m.type === "delete")) cancelled++;
    }
    // The pool is small enough that merging and cancelling happen often (the test can fail).
    assert.ok(merged > 200, `${merged}`);
    assert.ok(cancelled > 200, `${cancelled}`);
  } finally {
    kv.close();
  }
});
