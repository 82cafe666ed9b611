/**
 * Strict-only sovereignty through the HTTP stack on every endpoint: a strict-only organization
 * never reaches a pragmatic route, not even when its strict primary fails (the fallback is
 * skipped and the client gets the primary's failure), and a model with no strict route is
 * refused with 403 `policy_forbids_model` before any upstream call. The pragmatic provider has
 * its own simulator: its request log proves nothing arrived.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import {
  audioParts,
  embeddingModel,
  speechModel,
  transcribe,
  transcriptionModel,
} from "../helpers/non_chat.ts";
import { makeWav } from "../helpers/audio.ts";
import {
  errorBody,
  mixedRoutes,
  type PolicyHarness,
  startPolicyHarness,
} from "./policy_support.ts";

const MODELS = [
  chatModel("acme/mixed", [], { routes: mixedRoutes("fail-503", "prag-chat") }),
  chatModel("acme/claude", [], {
    sovereignty: "pragmatic",
    routes: [{ provider: "prag", upstream_model: "prag-claude" }],
  }),
  { ...embeddingModel("acme/embed", []), routes: mixedRoutes("fail-503", "prag-embed") },
  { ...transcriptionModel("acme/whisper", []), routes: mixedRoutes("fail-503", "prag-whisper") },
  { ...speechModel("acme/tts-prag", []), routes: [{ provider: "prag", upstream_model: "tts" }] },
  { ...speechModel("acme/tts", []), routes: [{ provider: "sim-a", upstream_model: "sim-tts" }] },
];

type Call = (h: PolicyHarness, model: string) => Promise<Response>;

const CALLS: Record<string, Call> = {
  "chat": (h, model) =>
    h.post("/v1/chat/completions", { model, messages: [{ role: "user", content: "Hi" }] }),
  "chat (stream)": (h, model) =>
    h.post("/v1/chat/completions", {
      model,
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    }),
  "responses": (h, model) => h.post("/v1/responses", { model, input: "Hi" }),
  "responses (stream)": (h, model) => h.post("/v1/responses", { model, input: "Hi", stream: true }),
};

const MIXED_BY_ENDPOINT: Array<[string, string, Call]> = [
  ...Object.entries(CALLS).map(([name, call]) =>
    [name, "acme/mixed", call] as [string, string, Call]
  ),
  ["embeddings", "acme/embed", (h, model) => h.post("/v1/embeddings", { model, input: "Hi" })],
  [
    "transcriptions",
    "acme/whisper",
    (h, model) => transcribe(h, audioParts(model, makeWav({ seconds: 1 }))),
  ],
];

for (const [endpoint, model, call] of MIXED_BY_ENDPOINT) {
  Deno.test(`sovereignty — ${endpoint}: strict-only skips the pragmatic standby when the strict primary fails`, async () => {
    await using h = await startPolicyHarness(MODELS);
    await h.setPolicy({ sovereignty: "strict_only" });
    const response = await call(h, model);
    assert.equal(response.status, 502, "the primary's failure, not the standby's answer");
    assert.equal((await errorBody(response)).code, "upstream_error");
    assert.equal(h.sim.requests.length, 1, "the strict primary was tried");
    assert.deepEqual(h.prag.requests, [], "no request reached the pragmatic provider");
  });

  Deno.test(`sovereignty — ${endpoint}: without the policy the same request falls back to the pragmatic standby`, async () => {
    await using h = await startPolicyHarness(MODELS);
    const response = await call(h, model);
    assert.equal(response.status, 200);
    await response.body?.cancel();
    assert.equal(h.prag.requests.length, 1);
  });
}

const PRAGMATIC_ONLY: Array<[string, string, Call]> = [
  ...Object.entries(CALLS).map(([name, call]) =>
    [name, "acme/claude", call] as [string, string, Call]
  ),
  [
    "speech",
    "acme/tts-prag",
    (h, model) => h.post("/v1/audio/speech", { model, input: "Hallo", voice: "alloy" }),
  ],
];

for (const [endpoint, model, call] of PRAGMATIC_ONLY) {
  Deno.test(`sovereignty — ${endpoint}: a model with no strict route is refused with 403 naming the rule`, async () => {
    await using h = await startPolicyHarness(MODELS);
    await h.setPolicy({ sovereignty: "strict_only" });
    const response = await call(h, model);
    assert.equal(response.status, 403);
    const error = await errorBody(response);
    assert.equal(error.code, "policy_forbids_model");
    assert.equal(error.type, "invalid_request_error");
    assert.match(error.message, /sovereignty=strict_only \(organization policy\)/);
    assert.match(error.message, /'prag' is pragmatic/);
    assert.equal(h.sim.requests.length + h.prag.requests.length, 0, "no provider was called");
    await h.flushed();
    // Not billed, but on record: status 403, no provider, cost 0, the rule that refused.
    const rows = await h.store.listRequests(h.org, 10);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.status, 403);
    assert.equal(rows[0]!.requested_model, model);
    assert.equal(rows[0]!.provider, null);
    assert.equal(rows[0]!.served_model, null);
    assert.equal(rows[0]!.cost_micro_eur, 0);
    assert.match(rows[0]!.policy_refusal ?? "", /sovereignty=strict_only.*'prag' is pragmatic/);
  });
}

Deno.test("sovereignty — speech on a strict route is served under strict-only", async () => {
  await using h = await startPolicyHarness(MODELS);
  await h.setPolicy({ sovereignty: "strict_only" });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "Hallo",
    voice: "alloy",
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  assert.deepEqual(h.prag.requests, []);
});

Deno.test("sovereignty — a route's tier is its provider's: a 'strict' model on a pragmatic provider is refused", async () => {
  await using h = await startPolicyHarness([
    chatModel("acme/strict-on-prag", [], {
      sovereignty: "strict",
      routes: [{ provider: "prag", upstream_model: "x" }],
    }),
  ]);
  await h.setPolicy({ sovereignty: "strict_only" });
  const response = await h.post("/v1/chat/completions", {
    model: "acme/strict-on-prag",
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(response.status, 403);
  assert.deepEqual(h.prag.requests, []);
});
