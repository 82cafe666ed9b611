import assert from "node:assert/strict";
import { decideRate, PendingCounts } from "../../src/limits/rate_limiter.ts";

Deno.test("decideRate — allows up to the limit within one minute, then refuses until rollover", () => {
  const minuteStart = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
  assert.equal(decideRate(3, 2, 0, minuteStart + 1000).allowed, true);
  const refused = decideRate(3, 3, 0, minuteStart + 15_000);
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterSeconds, 45);
});

Deno.test("decideRate — the previous minute's bucket decays linearly", () => {
  const minuteStart = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
  // 10 last minute, 30 s into this one: estimate 5 + current.
  assert.equal(decideRate(10, 4, 10, minuteStart + 30_000).allowed, true); // 9 + 1 ≤ 10
  const refused = decideRate(10, 5, 10, minuteStart + 30_000); // 10 + 1 > 10
  assert.equal(refused.allowed, false);
  // Needs previous weight ≤ 0.4 → 36 s elapsed → 6 s from now.
  assert.equal(refused.retryAfterSeconds, 6);
});

Deno.test("PendingCounts — counts until released", () => {
  const pending = new PendingCounts();
  const release = pending.add("k", 1);
  pending.add("k", 1);
  assert.equal(pending.get("k", 1), 2);
  release();
  assert.equal(pending.get("k", 1), 1);
  assert.equal(pending.get("k", 2), 0);
});
