/**
 * Byte-stable forwarding and repeated keys: the provider must not receive a key twice. Parsers
 * differ on which of two values they keep (JSON.parse, Python: the last; others, and proxies in
 * between: the first), so a repeated `model` could name one model to Sovra, which routes and
 * bills it, and another to whatever reads the first.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../../helpers/harness.ts";

Deno.test("POST /v1/chat/completions — a repeated model key reaches the provider once", async () => {
  // The catalog id is the upstream id (as `openai/gpt-oss-120b` on STACKIT and IONOS).
  await using h = await startHarness({ models: [chatModel("acme/chat", "acme/chat")] });
  const text =
    `{"model":"acme/dear-model","model":"acme/chat","messages":[{"role":"user","content":"hi"}]}`;
  const res = await h.post("/v1/chat/completions", text);
  assert.equal(res.status, 200, await res.clone().text());
  await res.text();
  const received = h.sim.requests.find((r) => r.path === "/v1/chat/completions");
  assert.ok(received?.text !== undefined, "the simulator recorded the body's text");
  assert.equal(received.text.split(`"model"`).length - 1, 1, received.text);
  assert.equal(JSON.parse(received.text).model, "acme/chat");
});

Deno.test("POST /v1/chat/completions — a field rule 1 drops is not sent, whatever its name", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  // Named like Object.prototype members: `to[key]` finds the inherited one, not "absent".
  const text =
    `{"model":"acme/chat","messages":[{"role":"user","content":"hi"}],"constructor":{"x":1},"valueOf":"v","seed":1}`;
  const res = await h.post("/v1/chat/completions", text);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get("x-sovra-dropped-params"), "constructor,valueOf,seed");
  await res.text();
  const received = h.sim.requests.find((r) => r.path === "/v1/chat/completions");
  assert.ok(received?.text !== undefined, "the simulator recorded the body's text");
  assert.deepEqual(JSON.parse(received.text), {
    model: "sim-chat",
    messages: [{ role: "user", content: "hi" }],
  });
});
