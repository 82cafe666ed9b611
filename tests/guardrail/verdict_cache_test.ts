/**
 * The guardrail's verdict cache key (src/guardrail/verdict_cache.ts) is seeded per cache with a
 * random value, so a pair of texts sharing a key cannot be built offline (review item 6): the
 * same text keys differently in two caches (two processes), and the same within one.
 */
import assert from "node:assert/strict";
import { VerdictCache } from "../../src/guardrail/verdict_cache.ts";

const TEXT = "Can you summarise this article about the energy transition?";

Deno.test("verdict cache — two caches key the same text differently", () => {
  const keys = new Set<number>();
  for (let i = 0; i < 4; i++) keys.add(new VerdictCache().key("v1", "user", TEXT));
  // Four 64-bit random seeds, 53-bit keys: equal keys only by a 2^-64-scale accident.
  assert.equal(keys.size, 4);
});

Deno.test("verdict cache — within one cache the key is stable and the verdict is found", () => {
  const cache = new VerdictCache();
  const key = cache.key("v1", "user", TEXT);
  assert.equal(cache.key("v1", "user", TEXT), key);
  assert.notEqual(cache.key("v1", "user", `${TEXT} `), key);
  assert.notEqual(cache.key("v1", "tool", TEXT), key);
  const verdict = { action: "pass" } as unknown as Parameters<VerdictCache["set"]>[1];
  cache.set(key, verdict);
  assert.equal(cache.get(cache.key("v1", "user", TEXT)), verdict);
  assert.equal(cache.get(cache.key("v1", "user", "another text")), undefined);
});

/** A cache whose seed is fixed (the random draw replaced for its construction only). */
function seededCache(seed: [number, number]): VerdictCache {
  const draw = crypto.getRandomValues;
  crypto.getRandomValues = (<T extends ArrayBufferView | null>(array: T): T => {
    if (array instanceof Uint32Array) array.set(seed);
    return array;
  }) as typeof crypto.getRandomValues;
  try {
    return new VerdictCache();
  } finally {
    crypto.getRandomValues = draw;
  }
}

Deno.test("verdict cache — the same text never shares a key across channels (a tool result cannot reuse the user verdict)", () => {
  // With this seed the hash half that carries the channel keeps only 21 bits, and these texts
  // (found by search) agree there in both channels: the channel must separate the keys by
  // construction, not by chance (the string key before named the channel outright).
  const cache = seededCache([0x9e3779b9, 0x12345678]);
  for (const text of ["xznnfb", "fsumve", "fijllvlecisowqx"]) {
    assert.notEqual(cache.key("v1", "user", text), cache.key("v1", "tool", text), text);
  }
});
