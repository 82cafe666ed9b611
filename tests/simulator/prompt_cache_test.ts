/**
 * The simulators' prompt cache behaves as the providers document theirs: prefixes below the
 * model's minimum are never cached; the first request writes, a repeat reads the longest cached
 * prefix and writes only what lies beyond it (each stretch at the TTL of the breakpoint that
 * ends it); an entry lives for its TTL after its last use. Mistral's cache reads whole 64-token
 * blocks of a prompt seen before under the same key.
 */
import assert from "node:assert/strict";
import {
  cacheMinimum,
  prefixHash,
  SimBlockCache,
  SimPromptCache,
} from "../../scripts/simulator/prompt_cache.ts";

const point = (prefix: string, tokens: number, ttl: "5m" | "1h" = "5m") => ({
  hash: prefixHash("m", prefix),
  tokens,
  ttl,
});

Deno.test("SimPromptCache — write, read, extend, expire; nothing below the minimum", () => {
  let now = 0;
  const cache = new SimPromptCache(() => now);
  assert.deepEqual(cache.use([point("short", 500)], 1_024), { read: 0, write: 0, write1h: 0 });
  assert.deepEqual(cache.use([point("short", 500)], 1_024), { read: 0, write: 0, write1h: 0 });
  const system = point("system", 2_000, "1h");
  assert.deepEqual(cache.use([system], 1_024), { read: 0, write: 2_000, write1h: 2_000 });
  assert.deepEqual(cache.use([system], 1_024), { read: 2_000, write: 0, write1h: 0 });
  // A longer conversation: the system prefix is read, the new stretch written at 5 minutes.
  const turn = point("system+turn", 3_500);
  assert.deepEqual(cache.use([system, turn], 1_024), { read: 2_000, write: 1_500, write1h: 0 });
  assert.deepEqual(cache.use([system, turn], 1_024), { read: 3_500, write: 0, write1h: 0 });
  // Past five minutes the 5-minute entry is gone, the 1-hour one lives on.
  now += 300_001;
  assert.deepEqual(cache.use([system, turn], 1_024), { read: 2_000, write: 1_500, write1h: 0 });
  now += 3_600_001;
  assert.deepEqual(cache.use([system], 1_024), { read: 0, write: 2_000, write1h: 2_000 });
  assert.equal(cacheMinimum("eu.anthropic.claude-haiku-4-5-20251001-v1:0"), 4_096);
  assert.equal(cacheMinimum("claude-sonnet-4-5@20250929"), 1_024);
});

Deno.test("SimBlockCache — leading 64-token blocks seen under the same key", () => {
  const cache = new SimBlockCache();
  const words = (n: number, tag = "w") => Array.from({ length: n }, (_, i) => `${tag}${i}`);
  assert.equal(cache.use("m", "k", words(200)), 0);
  assert.equal(cache.use("m", "k", words(200)), 192);
  assert.equal(cache.use("m", "k", [...words(130), ...words(70, "x")]), 128);
  assert.equal(cache.use("m", "other", words(200)), 0);
  assert.equal(cache.use("m", "k", words(60)), 0);
});
