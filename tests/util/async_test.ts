import assert from "node:assert/strict";
import { backoff, delay, retry } from "../../src/util/async.ts";

Deno.test("delay — resolves; an abort rejects with the signal's reason and clears the timer", async () => {
  await delay(1);
  const reason = new Error("stop");
  const controller = new AbortController();
  const waiting = delay(60_000, { signal: controller.signal });
  controller.abort(reason);
  // A timer left behind would fail this test through Deno's leak check.
  await assert.rejects(waiting, (error) => error === reason);
  await assert.rejects(delay(1, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
});

Deno.test("retry — tries again on a retryable failure, told the attempt number, until it resolves", async () => {
  const seen: number[] = [];
  const result = await retry((attempt) => {
    seen.push(attempt);
    return attempt < 2 ? Promise.reject(new Error("busy")) : Promise.resolve("done");
  }, { maxAttempts: 5, retryable: () => true, minTimeout: 1, maxTimeout: 1 });
  assert.equal(result, "done");
  assert.deepEqual(seen, [0, 1, 2]);
});

Deno.test("retry — throws a failure that is not retryable at once, and the last one when attempts run out", async () => {
  let calls = 0;
  const fatal = new Error("fatal");
  await assert.rejects(
    retry(() => {
      calls++;
      return Promise.reject(fatal);
    }, { maxAttempts: 5, retryable: (e) => e !== fatal, minTimeout: 1, maxTimeout: 1 }),
    (error) => error === fatal,
  );
  assert.equal(calls, 1);
  calls = 0;
  await assert.rejects(
    retry(() => Promise.reject(new Error(`busy ${++calls}`)), {
      maxAttempts: 3,
      retryable: () => true,
      minTimeout: 1,
      maxTimeout: 1,
    }),
    /busy 3/,
  );
  assert.equal(calls, 3);
});

Deno.test("backoff — grows by the multiplier up to the cap, jittered within [(1 − jitter) × w, w]", () => {
  const options = {
    maxAttempts: 12,
    retryable: () => true,
    minTimeout: 15,
    maxTimeout: 1500,
    jitter: 2 / 3,
  };
  for (let attempt = 0; attempt < 12; attempt++) {
    const wait = Math.min(1500, 15 * 2 ** attempt);
    for (let i = 0; i < 200; i++) {
      const ms = backoff(attempt, options);
      assert.ok(ms >= wait / 3 - 1e-9 && ms <= wait, `attempt ${attempt}: ${ms}`);
    }
  }
  assert.equal(backoff(3, { ...options, jitter: 0 }), 120);
});
