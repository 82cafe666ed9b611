/**
 * Spec "Limits": requests per minute per key over two 1-minute buckets; excess → 429
 * `rate_limit_exceeded`. The clock is injected, so no test waits a minute.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { chatBody, closeWithoutKv, expectError, getWithKey, ManualClock } from "../helpers/api.ts";

/**
 * The boundary scenario. `settle` waits for queued KV writes between requests, which hides the
 * double-count race described below; the strict variant sends back to back like a client.
 */
async function boundaryScenario(settle: boolean): Promise<void> {
  const clock = new ManualClock();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    now: clock.now,
  });
  const limited = await h.admin(["key", "create"], { org: h.org, rpm: "3" });
  assert.equal(limited.rpm, 3);
  const key = String(limited.key);
  for (let i = 0; i < 3; i++) {
    clock.advance(1_000);
    if (settle) await h.flushed();
    const res = await getWithKey(`${h.url}/v1/models`, key);
    assert.equal(res.status, 200, `request ${i + 1} of 3 was refused`);
    await res.body?.cancel();
  }
  clock.advance(1_000);
  if (settle) await h.flushed();
  const refused = await getWithKey(`${h.url}/v1/models`, key);
  const retryAfter = refused.headers.get("retry-after");
  await expectError(refused, 429, "rate_limit_exceeded");
  assert.ok(retryAfter !== null, "no Retry-After header");
  assert.match(retryAfter, /^\d+$/, `Retry-After '${retryAfter}' is not integer seconds`);
  // Sliding window: a full minute weighs on the next one, so up to two minutes.
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 120, `Retry-After ${retryAfter}`);

  // Chat counts too, and is refused before any upstream call.
  const before = h.sim.requests.length;
  const chat = await h.post("/v1/chat/completions", chatBody("acme/chat"), {
    authorization: `Bearer ${key}`,
  });
  await expectError(chat, 429, "rate_limit_exceeded");
  assert.equal(h.sim.requests.length, before);

  // Another key of the same org is not affected (the limit is per key).
  const other = await getWithKey(`${h.url}/v1/models`, h.key);
  assert.equal(other.status, 200);
  await other.body?.cancel();

  await h.flushed();
  clock.advance(120_000);
  for (let i = 0; i < 3; i++) {
    if (settle) await h.flushed();
    const again = await getWithKey(`${h.url}/v1/models`, key);
    assert.equal(again.status, 200, `request ${i + 1} two minutes later was refused`);
    await again.body?.cancel();
  }
}

Deno.test(
  "rate limit — N requests pass, N+1 gets 429 with Retry-After, 2 minutes later it passes",
  () => boundaryScenario(true),
);

Deno.test({
  name: "rate limit — N back-to-back requests (no pause between them) all pass",
  // Regression: an increment already in KV must not also be counted from memory.
  fn: () => boundaryScenario(false),
});

Deno.test("rate limit — concurrent requests cannot slip past the limit", async () => {
  const clock = new ManualClock();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    now: clock.now,
  });
  const limited = await h.admin(["key", "create"], { org: h.org, rpm: "5" });
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => getWithKey(`${h.url}/v1/models`, String(limited.key))),
  );
  const statuses = await Promise.all(responses.map(async (r) => {
    await r.body?.cancel();
    return r.status;
  }));
  // At most 5 pass (exactly 5 is the strict variant above, blocked by the double-count bug).
  const passed = statuses.filter((s) => s === 200).length;
  assert.ok(passed >= 1 && passed <= 5, statuses.join(","));
  assert.equal(statuses.filter((s) => s === 429).length, 20 - passed, statuses.join(","));
});

Deno.test("rate limit — the previous minute still weighs in (sliding window of two buckets)", async () => {
  const clock = new ManualClock();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    now: clock.now,
  });
  const limited = await h.admin(["key", "create"], { org: h.org, rpm: "4" });
  const key = String(limited.key);
  // Fill the limit late in one minute …
  clock.t = Math.floor(clock.t / 60_000) * 60_000 + 55_000;
  for (let i = 0; i < 4; i++) {
    await h.flushed();
    const res = await getWithKey(`${h.url}/v1/models`, key);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  await h.flushed();
  // … then, 1 s into the next minute, the previous bucket still counts almost fully.
  clock.t = Math.floor(clock.t / 60_000) * 60_000 + 61_000;
  const refused = await getWithKey(`${h.url}/v1/models`, key);
  const retryAfter = Number(refused.headers.get("retry-after"));
  await expectError(refused, 429, "rate_limit_exceeded");
  // As the previous bucket decays, room opens; Retry-After says when.
  assert.ok(retryAfter >= 1 && retryAfter < 60, `Retry-After ${retryAfter}`);
  clock.advance(retryAfter * 1000);
  const retried = await getWithKey(`${h.url}/v1/models`, key);
  assert.equal(retried.status, 200, `refused after waiting Retry-After ${retryAfter}`);
  await retried.body?.cancel();
});

Deno.test("rate limit — fail-open: with its store unreadable, an authenticated request still passes", async () => {
  // Snapshot reuse off: every request must go to the (broken) store.
  const h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    rpm: 1,
    env: { SOVRA_GATE_REFRESH_MS: "0" },
  });
  let kvClosed = false;
  try {
    // The key lookup is cached by the first request; then the store goes away.
    const first = await getWithKey(`${h.url}/v1/models`, h.key);
    assert.equal(first.status, 200);
    await first.body?.cancel();
    await h.flushed();
    h.store.kv.close();
    kvClosed = true;
    const res = await getWithKey(`${h.url}/v1/models`, h.key);
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  } finally {
    if (kvClosed) await closeWithoutKv(h);
    else await h.close();
  }
});

Deno.test({
  name: "rate limit — a client that waits the Retry-After seconds is admitted",
  // Regression: right after the rollover the full bucket is the previous one and still weighs
  // ~100 %; Retry-After must cover its decay too.
  fn: async () => {
    const clock = new ManualClock();
    await using h = await startHarness({
      models: [chatModel("acme/chat", "sim-chat")],
      now: clock.now,
    });
    const limited = await h.admin(["key", "create"], { org: h.org, rpm: "3" });
    const key = String(limited.key);
    clock.t = Math.floor(clock.t / 60_000) * 60_000 + 5_000;
    for (let i = 0; i < 3; i++) {
      await h.flushed();
      const res = await getWithKey(`${h.url}/v1/models`, key);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    await h.flushed();
    const refused = await getWithKey(`${h.url}/v1/models`, key);
    const retryAfter = Number(refused.headers.get("retry-after"));
    await expectError(refused, 429, "rate_limit_exceeded");
    clock.advance(retryAfter * 1000);
    const retried = await getWithKey(`${h.url}/v1/models`, key);
    assert.equal(retried.status, 200, `still refused after waiting Retry-After ${retryAfter}`);
    await retried.body?.cancel();
  },
});
