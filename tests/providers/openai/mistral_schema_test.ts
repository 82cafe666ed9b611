/**
 * The shipped catalog's Mistral routes against the simulator speaking Mistral's published schema
 * (`catalog/provider_schemas/mistral.json`: chat and embeddings are `additionalProperties: false`,
 * a field outside them is 422 `extra_forbidden`). Every request a client may send reaches Mistral
 * as one it accepts: no `stream_options` (usage comes in the last chunk anyway), no `name` on
 * system/user messages, no `reasoning_details`, `seed` as `random_seed`, `dimensions` as
 * `output_dimension`, no `user`, the voice as `voice_id`; what was removed is named in
 * `x-sovra-dropped-params`.
 */
import assert from "node:assert/strict";
import { startShippedGateway } from "../../helpers/shipped_catalog.ts";
import { sseData } from "../../helpers/sse.ts";
import { makeWav } from "../../helpers/audio.ts";

type Body = Record<string, unknown> & { messages?: Array<Record<string, unknown>> };

function lastBody(sim: { requests: Array<{ path: string; body: unknown }> }, path: string): Body {
  const found = sim.requests.findLast((r) => r.path === path);
  assert.ok(found, `the simulator saw no ${path}`);
  return found.body as Body;
}

Deno.test("Mistral chat — streamed: no stream_options sent, usage still in the last chunk, 200", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "mistral/mistral-large-2512",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Hello there" }],
  });
  assert.equal(response.status, 200, await response.clone().text());
  const events = sseData(await response.text());
  assert.equal(events.at(-1), "[DONE]");
  const last = JSON.parse(events.at(-2)!);
  assert.ok(last.usage?.prompt_tokens > 0, "usage reaches the client");
  const sent = lastBody(g.openai, "/v1/chat/completions");
  assert.equal(sent.stream, true);
  assert.equal("stream_options" in sent, false);
  assert.deepEqual(g.violations(), []);
});

Deno.test("Mistral chat — message names, reasoning_details and seed: shaped and named", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "mistral/mistral-large-2512",
    seed: 7,
    messages: [
      { role: "system", content: "Be brief.", name: "policy" },
      { role: "user", content: "Hi", name: "alice" },
      {
        role: "assistant",
        content: "Hello",
        reasoning_details: [{ type: "reasoning.text", text: "greet", format: "unknown" }],
      },
      { role: "user", content: "Again", name: "alice" },
    ],
  });
  assert.equal(response.status, 200, await response.clone().text());
  const dropped = (response.headers.get("x-sovra-dropped-params") ?? "").split(",").sort();
  assert.deepEqual(dropped, ["messages[].name", "messages[].reasoning_details"]);
  const sent = lastBody(g.openai, "/v1/chat/completions");
  assert.equal(sent.random_seed, 7);
  assert.equal("seed" in sent, false);
  for (const m of sent.messages!) {
    assert.equal("name" in m, false);
    assert.equal("reasoning_details" in m, false);
  }
  assert.deepEqual(g.violations(), []);
});

Deno.test("Mistral chat — an effort the model lacks becomes the nearest it has, named in x-sovra-adjusted-params", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "mistral/mistral-medium-3-5",
    reasoning: { effort: "medium" },
    messages: [{ role: "user", content: "Think" }],
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("x-sovra-adjusted-params"), "reasoning.effort=medium->high");
  assert.equal(lastBody(g.openai, "/v1/chat/completions").reasoning_effort, "high");
  assert.deepEqual(g.violations(), []);
});

Deno.test("Mistral embeddings — dimensions is sent as output_dimension, user is not sent", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/embeddings", {
    model: "mistral/mistral-embed",
    input: "bonjour",
    dimensions: 16,
    user: "end-user-1",
    encoding_format: "float",
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("x-sovra-dropped-params"), null);
  const sent = lastBody(g.openai, "/v1/embeddings");
  assert.equal(sent.output_dimension, 16);
  assert.equal("dimensions" in sent, false);
  assert.equal("user" in sent, false);
  assert.deepEqual(g.violations(), []);
});

Deno.test("Mistral speech — the voice travels as voice_id", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/audio/speech", {
    model: "mistral/voxtral-mini-tts-2603",
    input: "Hello",
    voice: "gb_jane_neutral",
    response_format: "wav",
  });
  assert.equal(response.status, 200, await response.clone().text());
  await response.arrayBuffer();
  const sent = lastBody(g.openai, "/v1/audio/speech");
  assert.equal(sent.voice_id, "gb_jane_neutral");
  assert.equal("voice" in sent, false);
  assert.deepEqual(g.violations(), []);
});

Deno.test("Mistral transcription — no prompt or response_format sent; a prompt is named as dropped", async () => {
  await using g = await startShippedGateway();
  const form = new FormData();
  form.append("model", "mistral/voxtral-mini-2602");
  form.append("prompt", "names: Sovra");
  form.append("language", "en");
  form.append("file", new File([makeWav({ seconds: 1 })], "a.wav", { type: "audio/wav" }));
  const response = await fetch(`${g.url}/v1/audio/transcriptions`, {
    method: "POST",
    headers: { authorization: `Bearer ${g.key}` },
    body: form,
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("x-sovra-dropped-params"), "prompt");
  const sent = lastBody(g.openai, "/v1/audio/transcriptions") as unknown as {
    fields: Record<string, string>;
  };
  assert.deepEqual(Object.keys(sent.fields).sort(), ["language", "model"]);
  assert.deepEqual(g.violations(), []);
});

Deno.test("Mistral — a retired model id answers 404 model_not_found naming its successor", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "mistral/mistral-large-2411",
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(response.status, 404);
  const body = await response.json();
  assert.equal(body.error.code, "model_not_found");
  assert.match(body.error.message, /retired on 2026-05-31; use 'mistral\/mistral-medium-3-5'/);
  assert.equal(g.openai.requests.length, 0);
});
