/**
 * One timer for many deadlines (src/util/deadline_sweep.ts) and the JSON body deadline built
 * on it (src/http/body.ts): a deadline fires once, a deleted one never, the timer stops when
 * nothing is pending (the test sanitizers would report a leaked interval), and a body that
 * does not arrive in time is still the 400 `upload_timeout`.
 */
import assert from "node:assert/strict";
import { DeadlineSweep, tickFor } from "../../src/util/deadline_sweep.ts";
import { readJsonBody } from "../../src/http/body.ts";
import { GatewayError } from "../../src/errors.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("deadline sweep — fires due deadlines once, never deleted ones, and stops its timer", async () => {
  const sweep = new DeadlineSweep();
  const fired: string[] = [];
  sweep.add(20, () => fired.push("a"));
  const b = sweep.add(20, () => fired.push("b"));
  sweep.add(60, () => fired.push("c"));
  sweep.delete(b);
  const deadline = Date.now() + 5_000;
  while ((sweep.size > 0 || sweep.running) && Date.now() < deadline) await sleep(10);
  assert.deepEqual(fired, ["a", "c"]);
  assert.equal(sweep.size, 0);
  assert.equal(sweep.running, false, "the interval stops once nothing is pending");
});

Deno.test("deadline sweep — deleting the last deadline leaves the interval to stop itself at its next tick", async () => {
  const sweep = new DeadlineSweep();
  const fired: string[] = [];
  const a = sweep.add(30, () => fired.push("a"));
  sweep.delete(a);
  assert.equal(sweep.running, true);
  const b = sweep.add(30, () => fired.push("b"));
  sweep.delete(b);
  const deadline = Date.now() + 5_000;
  while (sweep.running && Date.now() < deadline) await sleep(10);
  assert.equal(sweep.running, false);
  assert.deepEqual(fired, []);
});

Deno.test("deadline sweep — a throwing action does not stop the others", async () => {
  const sweep = new DeadlineSweep();
  const fired: string[] = [];
  sweep.add(10, () => {
    throw new Error("boom");
  });
  sweep.add(10, () => fired.push("after"));
  const deadline = Date.now() + 5_000;
  while (sweep.size > 0 && Date.now() < deadline) await sleep(10);
  assert.deepEqual(fired, ["after"]);
});

Deno.test("deadline sweep — the tick is a tenth of the deadline, within 10 ms to 1 s", () => {
  assert.equal(tickFor(1), 10);
  assert.equal(tickFor(500), 50);
  assert.equal(tickFor(30_000), 1_000);
});

function slowRequest(declaredLength: boolean): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"model":'));
      // Never closed: the rest of the body does not come.
    },
  });
  return new Request("http://127.0.0.1/v1/chat/completions", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(declaredLength ? { "content-length": "40" } : {}),
    },
    body,
  });
}

for (const declared of [true, false]) {
  Deno.test(`json body — a body that does not arrive within the deadline is 400 upload_timeout (${declared ? "declared length" : "no length"})`, async () => {
    const request = slowRequest(declared);
    // In the server a socket read keeps the process alive while the body is awaited; this
    // body is in memory, so a timer stands in for it (the sweep's interval is unref'd).
    const alive = setTimeout(() => {}, 5_000);
    const error = await readJsonBody(request, { deadlineMs: 50 }).catch((e) => e);
    clearTimeout(alive);
    assert.ok(error instanceof GatewayError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, "upload_timeout");
    await request.body?.cancel().catch(() => {});
  });
}

Deno.test("json body — a complete body within the deadline is parsed, declared length or not", async () => {
  for (const declared of [true, false]) {
    const text = '{"model":"m","messages":[]}';
    const request = new Request("http://127.0.0.1/x", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(declared ? { "content-length": String(text.length) } : {}),
      },
      body: declared ? text : ReadableStream.from([new TextEncoder().encode(text)]),
    });
    assert.deepEqual(await readJsonBody(request, { deadlineMs: 1_000 }), {
      model: "m",
      messages: [],
    });
  }
});
