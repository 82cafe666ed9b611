/**
 * Blocked providers, zero data retention, the model allow-list, a key narrower than its
 * organization, the 30-second bound on a policy change, and the allowed-models header, through
 * the HTTP stack. A provider that must not be used is proven unused by its simulator's log.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { embeddingModel } from "../helpers/non_chat.ts";
import { errorBody, startPolicyHarness } from "./policy_support.ts";

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "Hi" }] });

const MODELS = [
  // Primary on sim-a (strict, no ZDR), standby on eu-zdr (strict, ZDR; second simulator).
  chatModel("acme/chat", [], {
    routes: [
      { provider: "sim-a", upstream_model: "sim-chat" },
      { provider: "eu-zdr", upstream_model: "zdr-chat" },
    ],
  }),
  chatModel("acme/only-a", "only-a"),
  { ...embeddingModel("acme/embed", []), routes: [{ provider: "sim-a", upstream_model: "e" }] },
];

Deno.test("blocked provider — its routes are skipped: the standby serves and the blocked one is never called", async () => {
  await using h = await startPolicyHarness(MODELS);
  await h.setPolicy({ blocked_providers: ["sim-a"] });
  const response = await h.post("/v1/chat/completions", chat("acme/chat"));
  assert.equal(response.status, 200);
  await response.body?.cancel();
  assert.deepEqual(h.sim.requests, [], "sim-a never called");
  assert.equal(h.prag.requests.length, 1);
  assert.equal((h.prag.requests[0]!.body as { model: string }).model, "zdr-chat");
  await h.flushed();
  const [row] = await h.store.listRequests(h.org, 1);
  assert.equal(row!.provider, "eu-zdr");
  assert.equal(row!.fallbacks, 0, "a route the policy removed is not a fallback");
});

Deno.test("blocked provider — a model with every route blocked is 403 on chat and embeddings", async () => {
  await using h = await startPolicyHarness(MODELS);
  await h.setPolicy({ blocked_providers: ["sim-a"] });
  for (
    const [path, body] of [
      ["/v1/chat/completions", chat("acme/only-a")],
      ["/v1/embeddings", { model: "acme/embed", input: "Hi" }],
    ] as const
  ) {
    const response = await h.post(path, body);
    assert.equal(response.status, 403, path);
    const error = await errorBody(response);
    assert.equal(error.code, "policy_forbids_model");
    assert.match(error.message, /blocked_providers \(organization policy\) lists 'sim-a'/);
  }
  assert.deepEqual(h.sim.requests, []);
});

Deno.test("zdr_only — only providers with zdr: true serve; none left is 403 naming zdr_only", async () => {
  await using h = await startPolicyHarness(MODELS);
  await h.setPolicy({ zdr_only: true });
  const served = await h.post("/v1/chat/completions", chat("acme/chat"));
  assert.equal(served.status, 200);
  await served.body?.cancel();
  assert.deepEqual(h.sim.requests, [], "sim-a has no ZDR");
  const refused = await h.post("/v1/chat/completions", chat("acme/only-a"));
  assert.equal(refused.status, 403);
  assert.match((await errorBody(refused)).message, /zdr_only \(organization policy\)/);
});

Deno.test("allowed_models — a model off the allow-list is 403; a listed one is served", async () => {
  await using h = await startPolicyHarness(MODELS);
  await h.setPolicy({ allowed_models: ["acme/chat"] });
  const refused = await h.post("/v1/chat/completions", chat("acme/only-a"));
  assert.equal(refused.status, 403);
  assert.match(
    (await errorBody(refused)).message,
    /allowed_models .* does not list 'acme\/only-a'/,
  );
  const served = await h.post("/v1/chat/completions", chat("acme/chat"));
  assert.equal(served.status, 200);
  await served.body?.cancel();
});

Deno.test("key narrower than org — the key's own block applies; the key cannot widen the org's allow-list", async () => {
  await using h = await startPolicyHarness(MODELS);
  await h.setPolicy({ allowed_models: ["acme/chat"] });
  await h.store.putKeyPolicy(h.org, h.keyId, {
    blocked_providers: ["sim-a"],
    allowed_models: ["acme/chat", "acme/only-a"],
  }, "test");
  const widened = await h.post("/v1/chat/completions", chat("acme/only-a"));
  assert.equal(widened.status, 403, "the key lists it, the organization does not");
  const narrowed = await h.post("/v1/chat/completions", chat("acme/chat"));
  assert.equal(narrowed.status, 200);
  await narrowed.body?.cancel();
  assert.deepEqual(h.sim.requests, [], "the key blocked sim-a");

  // Another key of the same organization is not narrowed.
  const other = await h.admin(["key", "create"], { org: h.org, rpm: "100" });
  const response = await fetch(`${h.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${other.key}`, "content-type": "application/json" },
    body: JSON.stringify(chat("acme/chat")),
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  assert.equal(h.sim.requests.length, 1, "the other key uses sim-a");
});

Deno.test("policy change — takes effect within 30 s, like a key revocation", async () => {
  let now = Date.now();
  await using h = await startPolicyHarness(MODELS, { now: () => now });
  const before = await h.post("/v1/chat/completions", chat("acme/only-a"));
  assert.equal(before.status, 200);
  await before.body?.cancel();
  await h.setPolicy({ blocked_providers: ["sim-a"] });
  now += 31_000;
  const after = await h.post("/v1/chat/completions", chat("acme/only-a"));
  assert.equal(after.status, 403);
  await after.body?.cancel();
});

Deno.test("GET /v1/models — same list for every key; a header names the models the policy allows", async () => {
  await using h = await startPolicyHarness(MODELS);
  const open = await fetch(`${h.url}/v1/models`, {
    headers: { authorization: `Bearer ${h.key}` },
  });
  assert.equal(open.headers.get("x-sovra-policy-allowed-models"), "*");
  const all = await open.json();
  h.gateway.deps.policies.invalidate();
  await h.setPolicy({ blocked_providers: ["sim-a"] });
  const narrowed = await fetch(`${h.url}/v1/models`, {
    headers: { authorization: `Bearer ${h.key}` },
  });
  assert.equal(narrowed.headers.get("x-sovra-policy-allowed-models"), "acme/chat");
  assert.deepEqual(await narrowed.json(), all, "the list itself does not change");
});
