import assert from "node:assert/strict";
import { createTranscriptionSlots } from "../../../src/api_formats/audio/transcription_slots.ts";
import { GatewayError } from "../../../src/errors.ts";

Deno.test("createTranscriptionSlots — four run at once, the fifth gets the first freed slot", async () => {
  const slots = createTranscriptionSlots({ max: 4, waitMs: 10_000 });
  const held = await Promise.all([1, 2, 3, 4].map(() => slots.acquire()));
  assert.equal(slots.active, 4);
  let fifthGranted = false;
  const fifth = slots.acquire().then((release) => {
    fifthGranted = true;
    return release;
  });
  await Promise.resolve();
  assert.equal(fifthGranted, false);
  assert.equal(slots.waiting, 1);
  held[2]!();
  held[2]!(); // a second call must not free another slot
  const release = await fifth;
  assert.equal(fifthGranted, true);
  assert.equal(slots.active, 4);
  assert.equal(slots.waiting, 0);
  release();
  for (const r of held) r();
  assert.equal(slots.active, 0);
});

Deno.test("createTranscriptionSlots — no slot within the wait is 503 transcriptions_busy", async () => {
  const slots = createTranscriptionSlots({ max: 1, waitMs: 20 });
  const release = await slots.acquire();
  await assert.rejects(slots.acquire(), (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 503);
    assert.equal(error.code, "transcriptions_busy");
    assert.equal(error.headers["Retry-After"], "10");
    assert.equal(error.toResponse().headers.get("retry-after"), "10");
    return true;
  });
  assert.equal(slots.waiting, 0);
  release();
  const again = await slots.acquire();
  again();
  assert.equal(slots.active, 0);
});

Deno.test("createTranscriptionSlots — waiters are served in arrival order", async () => {
  const slots = createTranscriptionSlots({ max: 1, waitMs: 10_000 });
  const first = await slots.acquire();
  const order: string[] = [];
  const a = slots.acquire().then((r) => (order.push("a"), r));
  const b = slots.acquire().then((r) => (order.push("b"), r));
  first();
  (await a)();
  (await b)();
  assert.deepEqual(order, ["a", "b"]);
  assert.equal(slots.active, 0);
});

Deno.test("createTranscriptionSlots — a waiter whose client leaves gives up its place", async () => {
  const slots = createTranscriptionSlots({ max: 1, waitMs: 10_000 });
  const held = await slots.acquire();
  const controller = new AbortController();
  const waiting = slots.acquire(controller.signal);
  const reason = new Error("client gone");
  controller.abort(reason);
  await assert.rejects(waiting, (error) => error === reason);
  assert.equal(slots.waiting, 0);
  held();
  assert.equal(slots.active, 0);
});
