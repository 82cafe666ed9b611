import assert from "node:assert/strict";
import { decideRate } from "../../src/limits/rate_limiter.ts";

Deno.test("decideRate — a full minute is refused until its count has decayed after rollover", () => {
  const minuteStart = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
  assert.equal(decideRate(3, 2, 0, minuteStart + 1000).allowed, true);
  const refused = decideRate(3, 3, 0, minuteStart + 15_000);
  assert.equal(refused.allowed, false);
  // 45 s to the rollover, then 3 × (1 − e) + 1 ≤ 3 needs e ≥ 1/3: 20 s more.
  assert.equal(refused.retryAfterSeconds, 65);
  // And at that moment the request is indeed allowed.
  assert.equal(decideRate(3, 0, 3, minuteStart + 80_000).allowed, true);
  assert.equal(decideRate(3, 0, 3, minuteStart + 79_000).allowed, false);
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
