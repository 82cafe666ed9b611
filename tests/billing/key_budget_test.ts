/**
 * Per-key budgets (docs/costs.md "Per-key budgets"): a key's spend in its period (UTC) is bounded
 * at admission like the balance — once it reaches the budget every billed endpoint answers 402
 * `key_budget_exceeded`, naming when the period resets, before any provider call; the
 * organization's other keys go on; raising or removing the budget (the CLI's `key update`)
 * applies within the key cache's delay.
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { embeddingModel, speechModel, transcriptionModel } from "../helpers/non_chat.ts";
import { makeWav, multipartBody } from "../helpers/audio.ts";
import { until } from "../helpers/until.ts";

const BOUNDARY = "key-budget-boundary";

function call(h: Harness, key: string, path: string, body: unknown): Promise<Response> {
  const multipart = path.endsWith("transcriptions");
  return fetch(`${h.url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": multipart ? `multipart/form-data; boundary=${BOUNDARY}` : "application/json",
    },
    body: multipart ? body as Uint8Array<ArrayBuffer> : JSON.stringify(body),
  });
}

const REQUESTS: Array<[string, unknown]> = [
  ["/v1/chat/completions", { model: "acme/chat", messages: [{ role: "user", content: "Hi" }] }],
  ["/v1/responses", { model: "acme/chat", input: "Hi", store: false }],
  ["/v1/embeddings", { model: "acme/embed", input: "Hi" }],
  ["/v1/audio/speech", { model: "acme/tts", input: "Hi there.", voice: "alloy" }],
  [
    "/v1/audio/transcriptions",
    multipartBody(BOUNDARY, [
      { name: "model", value: "acme/whisper" },
      { name: "file", value: makeWav({ seconds: 1 }), filename: "a.wav", contentType: "audio/wav" },
    ]),
  ],
];

Deno.test("key budgets — over its day's budget a key gets 402 key_budget_exceeded on every endpoint, with the reset time", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/chat", "sim-chat"),
      embeddingModel("acme/embed", "sim-embed"),
      speechModel("acme/tts", "sim-tts"),
      transcriptionModel("acme/whisper", "sim-whisper"),
    ],
    env: { SOVRA_KEY_CACHE_SECONDS: "1" },
  });
  const created = await h.admin(["key", "create"], {
    org: h.org,
    name: "capped",
    budget: "150",
    period: "day",
  });
  assert.equal(created.budget_micro_eur, 150);
  assert.equal(created.budget_period, "day");
  const key = String(created.key);

  // Each chat costs about 100 µEUR here: the second still starts under the budget.
  let served = 0;
  let refused: Response | undefined;
  while (!refused && served < 10) {
    const res = await call(h, key, ...REQUESTS[0]!);
    if (res.status === 402) refused = res;
    else {
      const text = await res.text();
      assert.equal(res.status, 200, text);
      served++;
      await h.flushed();
    }
  }
  assert.equal(served, 2);
  const tomorrow = new Date(Date.UTC(
    new Date().getUTCFullYear(),
    new Date().getUTCMonth(),
    new Date().getUTCDate() + 1,
  )).toISOString();
  const upstreamCalls = h.sim.requests.length;
  for (const [path, body] of REQUESTS) {
    const res = path === REQUESTS[0]![0] && refused ? refused : await call(h, key, path, body);
    const error = (await res.json()).error;
    assert.equal(res.status, 402, `${path}: ${JSON.stringify(error)}`);
    assert.equal(error.code, "key_budget_exceeded", path);
    assert.ok(error.message.includes(tomorrow), `${path}: ${error.message}`);
  }
  assert.equal(h.sim.requests.length, upstreamCalls, "no provider call after the budget");

  // The organization's own key is not bound by it.
  const other = await call(h, h.key, ...REQUESTS[0]!);
  assert.equal(other.status, 200);
  await other.body?.cancel();

  // Removing the budget lets the key through again (within the key cache's delay).
  const updated = await h.admin(["key", "update"], { id: String(created.id), budget: "off" });
  assert.equal(updated.budget_micro_eur, null);
  await until("the key passes again", async () => {
    const res = await call(h, key, ...REQUESTS[0]!);
    await res.body?.cancel();
    return res.status === 200;
  });
});

Deno.test("key budgets — the CLI refuses a bad budget or period, naming the flag", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  await assert.rejects(
    h.admin(["key", "create"], { org: h.org, budget: "0", period: "day" }),
    /budget must be a positive whole number/,
  );
  await assert.rejects(
    h.admin(["key", "create"], { org: h.org, budget: "100", period: "year" }),
    /period must be one of day, week, month, total/,
  );
  await assert.rejects(
    h.admin(["key", "update"], { id: h.keyId, period: "day" }),
    /--period needs --budget/,
  );
});
