/**
 * An admission whose route usually answers later than three commit intervals rides with the
 * next paced commit instead of forcing one of its own (limits/admission.ts); an answer that
 * comes first hurries that commit, and no answer content ever goes out before its admission
 * record is durable (the durability guarantee, unchanged).
 */
import assert from "node:assert/strict";
import { type AdmissionContext, RequestAdmission } from "../../src/limits/admission.ts";
import type { GateState } from "../../src/limits/gate_state.ts";
import type { RequestRecord } from "../../src/state/records.ts";
import { RouteMetrics } from "../../src/routing/route_metrics.ts";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { deltaOf, sseChunks, user } from "../helpers/chat.ts";

function fakeAdmission(deferAfterMs: number) {
  const calls: Array<{ admission: boolean; deferrable: boolean | undefined }> = [];
  let sent: (() => void) | undefined;
  let hurried = 0;
  let land!: () => void;
  const landed = new Promise<void>((resolve) => land = resolve);
  const ctx: AdmissionContext = {
    gate: {} as GateState,
    store: {
      countRequest(_key, _minute, onSent, admission, deferrable) {
        calls.push({ admission: admission !== undefined, deferrable });
        sent = onSent;
        return landed;
      },
      hurryWrites() {
        hurried++;
      },
      checkpointAdmission: () => Promise.resolve(),
    },
    deferAfterMs,
    instance: "i",
    requestId: "req_1",
    keyId: "key_1",
    org: "org_1",
    minute: 1,
    billed: false,
    markSent: () => {},
    refusal: () => new Error("refused"),
    onWriteError: () => {},
  };
  return {
    admission: new RequestAdmission(ctx),
    calls,
    hurried: () => hurried,
    land,
    /** The store hands the commit carrying the write to KV (not durable yet). */
    send: () => sent?.(),
  };
}

const recovery = { id: "req_1" } as RequestRecord;

Deno.test("admission — deferred only when the route is known to answer after deferAfterMs; hurry once, before it is durable", async () => {
  for (const [expected, deferrable] of [[undefined, false], [29, false], [30, true]] as const) {
    const f = fakeAdmission(30);
    f.admission.admit({ holdMicroEur: 0n, recovery }, expected);
    assert.deepEqual(f.calls, [{ admission: true, deferrable }], `expected ${expected} ms`);
    f.admission.hurry();
    f.admission.hurry();
    assert.equal(f.hurried(), deferrable ? 1 : 0, "an urgent admission needs no hurry");
  }
  const f = fakeAdmission(30);
  f.admission.admit({ holdMicroEur: 0n, recovery }, 1_000);
  f.land();
  await f.admission.durable();
  f.admission.hurry();
  assert.equal(f.hurried(), 0, "a durable admission is not hurried");
  // On its way but not durable yet: hurrying would only rush the writes queued behind it.
  const onItsWay = fakeAdmission(30);
  onItsWay.admission.admit({ holdMicroEur: 0n, recovery }, 1_000);
  onItsWay.send();
  onItsWay.admission.hurry();
  assert.equal(onItsWay.hurried(), 0, "a sent admission is not hurried");
  // A plain increment (no provider called) is never an admission to defer.
  const plain = fakeAdmission(30);
  plain.admission.countOnce(undefined, true);
  assert.deepEqual(plain.calls, [{ admission: false, deferrable: false }]);
});

/** Watches the gateway store's admission writes: whether deferred, and when durable. */
function watchAdmissions(h: Harness) {
  const seen: Array<{ deferrable: boolean; durableAt?: number }> = [];
  let hurries = 0;
  const store = h.store;
  const countRequest = store.countRequest.bind(store);
  store.countRequest = (keyId, minute, onSent, admission, deferrable) => {
    const written = countRequest(keyId, minute, onSent, admission, deferrable);
    if (!admission) return written;
    const entry: { deferrable: boolean; durableAt?: number } = { deferrable: deferrable === true };
    seen.push(entry);
    return written.then(() => {
      entry.durableAt = performance.now();
    });
  };
  const hurryWrites = store.hurryWrites.bind(store);
  store.hurryWrites = () => {
    hurries++;
    hurryWrites();
  };
  return { seen, hurries: () => hurries };
}

Deno.test("admission — on a route known to be slow the record rides a paced commit; an early answer hurries it and still waits for it (chat, stream and not)", async () => {
  // Commits at most every minute: a deferred record left alone would wait past the 2 s an
  // answer may wait for its admission (then a 500), so every 200 below needed its hurry.
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat+chunks-3")],
    env: { SOVRA_COMMIT_INTERVAL_MS: "60000", SOVRA_STREAM_IDLE_MS: "2000" },
  });
  const watched = watchAdmissions(h);
  const body = { model: "acme/chat", messages: [user("hi")] };
  // Unknown route: its admission commits at once, as always.
  assert.equal((await h.post("/v1/chat/completions", body)).status, 200);
  assert.deepEqual(watched.seen.map((s) => s.deferrable), [false]);
  // The route as a slow LLM looks to the live metrics (200 s > 3 × 60 s); it answers at once.
  const key = RouteMetrics.key("sim-a", "sim-chat+chunks-3");
  // (a moving average: a few samples move it there)
  for (let i = 0; i < 15; i++) {
    h.gateway.deps.metrics.recordSuccess(key, { latencyMs: 200_000, ttftMs: 200_000 });
  }
  for (const stream of [false, true]) {
    const res = await h.post("/v1/chat/completions", { ...body, stream });
    assert.equal(res.status, 200);
    const text = await res.text();
    const answeredAt = performance.now();
    const entry = watched.seen.at(-1)!;
    assert.equal(entry.deferrable, true, `stream ${stream}: deferred`);
    assert.ok(entry.durableAt !== undefined && entry.durableAt <= answeredAt, "durable first");
    if (stream) {
      assert.ok(sseChunks(text).some((c) => typeof deltaOf(c)?.content === "string"));
    } else assert.match(JSON.parse(text).choices[0].message.content, /\w/);
  }
  assert.equal(watched.hurries(), 2, "each early answer hurried its commit");
  // The settles wait for the minute's interval: send them now (as an answer waiting would).
  let records = await h.store.listRequests(h.org, 10);
  for (let i = 0; i < 250 && records.length < 3; i++) {
    h.store.hurryWrites();
    await new Promise((resolve) => setTimeout(resolve, 20));
    records = await h.store.listRequests(h.org, 10);
  }
  assert.equal(records.length, 3, "every request settled");
});
