/** Spec: the end-user id (`user`) on every JSON endpoint, over real HTTP. */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";

Deno.test("end-user id — over 256 characters is refused on every JSON endpoint", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/chat", "sim-chat"),
      {
        id: "acme/embed",
        kind: "embedding",
        routes: [{ provider: "sim-a", upstream_model: "sim-embed" }],
      },
      {
        id: "acme/tts",
        kind: "speech",
        voices: ["alloy"],
        routes: [{ provider: "sim-a", upstream_model: "sim-tts" }],
      },
    ],
  });
  const user = "u".repeat(257);
  const bodies: Array<[string, unknown]> = [
    ["/v1/chat/completions", {
      model: "acme/chat",
      messages: [{ role: "user", content: "x" }],
      user,
    }],
    ["/v1/responses", { model: "acme/chat", input: "x", user }],
    ["/v1/embeddings", { model: "acme/embed", input: "x", user }],
    ["/v1/audio/speech", { model: "acme/tts", input: "x", voice: "alloy", user }],
  ];
  for (const [path, body] of bodies) {
    const res = await h.post(path, body);
    assert.equal(res.status, 400, path);
    const error = (await res.json()).error;
    assert.equal(error.param, "user", path);
  }
  assert.equal(h.sim.requests.length, 0);
});
