/**
 * A whole (non-stream) answer waits for its admission record to be durable, but not
 * forever: a store whose admission commit never acknowledges fails the request after the
 * upstream idle limit (`SOVRA_STREAM_IDLE_MS`) with the spec's 500 gateway error naming the
 * store, through every non-stream path (chat and Responses; embeddings and speech, the non-chat
 * call). The provider that answered is not blamed (its route error rate stays 0), the record
 * carries the status the client got at cost 0, every credit hold is released, and the admission
 * (written by the store, only its acknowledgement hangs) is settled by that row: a recovery pass
 * finds nothing left to bill a second time.
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { chatBody } from "../helpers/api.ts";
import { embeddingModel, errorOf, speechModel } from "../helpers/non_chat.ts";

/**
 * Every admission write goes to the store, but its acknowledgement does not come while the test
 * runs (`release()` at its end only lets a failing gateway's requests, and the harness, close).
 */
function hangAdmissionAcks(h: Harness) {
  let release!: () => void;
  const never = new Promise<void>((resolve) => release = resolve);
  const store = h.store;
  const countRequest = store.countRequest.bind(store);
  store.countRequest = (keyId, minute, onSent, admission) => {
    const written = countRequest(keyId, minute, onSent, admission);
    return admission ? never.then(() => written) : written;
  };
  return { release };
}

Deno.test("non-stream — a hung admission commit fails with the store's 500 after the idle limit, unbilled, the provider unblamed", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/chat", "sim-chat"),
      embeddingModel("acme/embed", "sim-embed"),
      speechModel("acme/tts", "sim-tts"),
    ],
    env: { SOVRA_STREAM_IDLE_MS: "300" },
  });
  const hung = hangAdmissionAcks(h);
  try {
    await stalledRequests(h);
  } finally {
    hung.release();
  }
});

async function stalledRequests(h: Harness) {
  const cases: Array<[string, string, unknown, string]> = [
    ["chat", "/v1/chat/completions", chatBody("acme/chat", "Hello there"), "sim-a/sim-chat"],
    ["responses", "/v1/responses", { model: "acme/chat", input: "Hello there" }, "sim-a/sim-chat"],
    ["embeddings", "/v1/embeddings", { model: "acme/embed", input: "x" }, "sim-a/sim-embed"],
    [
      "speech",
      "/v1/audio/speech",
      { model: "acme/tts", input: "Hallo", voice: "alloy" },
      "sim-a/sim-tts",
    ],
  ];
  const ids: string[] = [];
  for (const [name, path, body, routeKey] of cases) {
    // Liveness: without a bound the answer never comes; the test gives up after seconds.
    const res = await fetch(`${h.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(res.status, 500, `${name}: the client's status`);
    const error = await errorOf(res);
    assert.equal(error.code, "internal_error", name);
    assert.match(error.message, /store/, `${name}: the store is named as the cause`);
    const route = h.gateway.deps.metrics.snapshot(routeKey);
    assert.equal(route?.errorRate ?? 0, 0, `${name}: the stalled commit blamed the provider`);
    const id = res.headers.get("x-sovra-request-id");
    assert.ok(id, `${name}: a request id`);
    ids.push(id);
  }
  await h.flushed();
  assert.equal(h.gateway.deps.gate.holds.open, 0, "every credit hold released");
  const rows = await h.store.listRequests(h.org, 100);
  assert.deepEqual(rows.map((r) => r.id).sort(), [...ids].sort(), "one row per request");
  for (const row of rows) {
    assert.equal(row.status, 500, `${row.endpoint}: the record carries the client's status`);
    assert.equal(row.cost_micro_eur, 0, `${row.endpoint}: an answer the client never got`);
  }
  // The admissions were written; each settle removed its own: another instance recovering after
  // this one's lease ran out bills none of them again.
  assert.equal(await h.store.recoverAdmissions("inst_other", Date.now() + 86_400_000), 0);
  assert.equal((await h.store.listRequests(h.org, 100)).length, ids.length);
}
