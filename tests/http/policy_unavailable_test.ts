/**
 * The gate reads the key's effective policy before it admits a request; when the read fails and
 * nothing is cached, the request is refused (fail closed) with the spec's 503
 * `policy_unavailable`, `retry-after: 1` and the request id, through the real HTTP stack. The
 * store's policy read is made to fail on the real KV store for one request, then works again.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";

Deno.test("gate — a failed policy read with nothing cached is 503 policy_unavailable, then served", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const store = h.store as unknown as { getKeyPolicy: (keyId: string) => Promise<unknown> };
  const read = store.getKeyPolicy;
  store.getKeyPolicy = () => Promise.reject(new Error("store down"));
  const body = { model: "acme/chat", messages: [{ role: "user", content: "Hello!" }] };
  const refused = await h.post("/v1/chat/completions", body);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.match(refused.headers.get("x-request-id") ?? "", /^req_/);
  const error = (await refused.json()).error;
  assert.equal(error.code, "policy_unavailable");
  assert.match(error.message, /policy could not be read/);
  assert.equal(h.sim.requests.length, 0, "refused before any upstream call");

  store.getKeyPolicy = read;
  const served = await h.post("/v1/chat/completions", body);
  assert.equal(served.status, 200);
  await served.body?.cancel();
});
