/**
 * `mergeMutations` (src/state/kv/group_commit.ts) against the string-keyed merge it replaced
 * (issue 10's KV write path): the same sums, sets and deletes, in the same order, for random
 * batches over a small pool of keys (so sums merge and sets and deletes meet).
 */
import assert from "node:assert/strict";
import { mergeMutations, type Mutation } from "../../src/state/kv/group_commit.ts";

const U64 = 1n << 64n;

/** The previous implementation, verbatim but for its types. */
function previousMerge(batch: { mutations: Mutation[] }[], extra: Mutation[] = []) {
  const sums = new Map<string, [Deno.KvKey, bigint]>();
  const sets = new Map<string, { key: Deno.KvKey; value: unknown }>();
  const deletes = new Map<string, Deno.KvKey>();
  for (const mutations of [...batch.map((p) => p.mutations), extra]) {
    for (const m of mutations) {
      const id = keyId(m.key);
      if (m.type === "set") {
        sets.set(id, m);
        deletes.delete(id);
      } else if (m.type === "delete") {
        if (!sets.delete(id)) deletes.set(id, m.key);
      } else {
        const current = sums.get(id);
        if (current) current[1] = (current[1] + m.value) % U64;
        else sums.set(id, [m.key, m.value]);
      }
    }
  }
  return { sums: [...sums.values()], sets: [...sets.values()], deletes: [...deletes.values()] };
}

function keyId(key: Deno.KvKey): string {
  let id = "";
  for (const part of key) {
    id += typeof part === "string" ? `\u0000s${part}` : `\u0000${typeof part}${String(part)}`;
  }
  return id;
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS: Deno.KvKey[] = [
  ["rl", 29_000_000, "key_a"],
  ["rl", 29_000_001, "key_a"],
  ["rl", 29_000_000, "key_b"],
  ["credit", "org_a", "spent"],
  ["usage_day", "org_a", "2026-11-25", "requests"],
  ["usage_day", "org_a", "2026-11-25", "cost_micro_eur"],
  ["usage_day", "org_b", "2026-11-25", "requests"],
  ["request", "org_a", "req_1"],
  ["request", "org_a", "req_2"],
  ["admission", "req_1"],
  ["admission", "req_2"],
  ["admission"],
  ["n", 1],
  ["n", "1"],
  ["n", 1n],
  ["n", true],
  ["n", new Uint8Array([1, 2])],
  ["n", new Uint8Array([1, 2])],
];

Deno.test("mergeMutations — the same result as the string-keyed merge, on 3,000 random batches", () => {
  const next = random(20261125);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  let merged = 0;
  let cancelled = 0;
  for (let round = 0; round < 3_000; round++) {
    const mutation = (): Mutation => {
      // Fresh key arrays: nothing relies on two mutations sharing an array.
      const key = [...pick(KEYS)];
      const kind = next();
      if (kind < 0.5) {
        return {
          type: "sum",
          key,
          value: next() < 0.1 ? U64 - 1n : BigInt(Math.floor(next() * 9)),
        };
      }
      return kind < 0.8 ? { type: "set", key, value: round } : { type: "delete", key };
    };
    const batch = Array.from({ length: 1 + Math.floor(next() * 6) }, () => ({
      mutations: Array.from({ length: Math.floor(next() * 6) }, mutation),
    }));
    const extra = Array.from({ length: Math.floor(next() * 3) }, mutation);
    const expected = previousMerge(batch, extra);
    const actual = mergeMutations(batch, extra);
    assert.deepEqual(actual, expected, `round ${round}`);
    const count = batch.reduce((n, p) => n + p.mutations.length, extra.length);
    const out = actual.sums.length + actual.sets.length + actual.deletes.length;
    if (out < count) merged++;
    if (batch.some((p) => p.mutations.some((m) => m.type === "delete"))) cancelled++;
  }
  // The pool is small enough that merging and cancelling happen often (the test can fail).
  assert.ok(merged > 1_000, `${merged}`);
  assert.ok(cancelled > 1_000, `${cancelled}`);
});
