/**
 * Spec rules shared by the three non-chat endpoints over real HTTP: common 400/401/402/404
 * answers, passthrough of provider errors, `stream: false` and the per-key rate limit.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { makeWav } from "../helpers/audio.ts";
import { failureResponse } from "../../scripts/simulator/openai/responses.ts";
import {
  audioParts,
  embeddingModel,
  errorOf,
  speechModel,
  transcribe,
  transcriptionModel,
} from "../helpers/non_chat.ts";

const MODELS = [
  embeddingModel("acme/embed", "sim-embed"),
  transcriptionModel("acme/whisper", "sim-whisper"),
  speechModel("acme/tts", "sim-tts"),
  chatModel("acme/chat", "sim-chat"),
];

Deno.test("non-chat endpoints — missing model or malformed JSON is 400 invalid_request", async () => {
  await using h = await startHarness({ models: MODELS });
  for (const path of ["/v1/embeddings", "/v1/audio/speech"]) {
    const missing = await h.post(path, { input: "hi", voice: "alloy" });
    assert.equal(missing.status, 400, path);
    assert.equal((await errorOf(missing)).code, "invalid_request", path);
    const malformed = await h.post(path, '{"model": "acme/embed", "input": ');
    assert.equal(malformed.status, 400, path);
    assert.equal((await errorOf(malformed)).code, "invalid_request", path);
  }
  const noModel = await transcribe(h, [
    { name: "file", value: makeWav({ seconds: 1 }), filename: "a.wav" },
  ]);
  assert.equal(noModel.status, 400);
  assert.equal((await errorOf(noModel)).code, "invalid_request");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("non-chat endpoints — a JSON body over 2 MiB is 400 invalid_request", async () => {
  await using h = await startHarness({ models: MODELS });
  const big = "word ".repeat(Math.ceil((2 * 1024 * 1024) / 5) + 10);
  for (const path of ["/v1/embeddings", "/v1/audio/speech"]) {
    const response = await h.post(path, { model: "acme/embed", input: big, voice: "alloy" });
    assert.equal(response.status, 400, path);
    assert.equal((await errorOf(response)).code, "invalid_request", path);
  }
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("non-chat endpoints — an unknown model id is 404 model_not_found", async () => {
  await using h = await startHarness({ models: MODELS });
  const embed = await h.post("/v1/embeddings", { model: "acme/nope", input: "hi" });
  assert.equal(embed.status, 404);
  assert.equal((await errorOf(embed)).code, "model_not_found");
  const speech = await h.post("/v1/audio/speech", {
    model: "acme/nope",
    input: "hi",
    voice: "alloy",
  });
  assert.equal(speech.status, 404);
  assert.equal((await errorOf(speech)).code, "model_not_found");
  const transcription = await transcribe(h, audioParts("acme/nope", makeWav({ seconds: 1 })));
  assert.equal(transcription.status, 404);
  assert.equal((await errorOf(transcription)).code, "model_not_found");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("non-chat endpoints — a chat model is rejected by transcription and speech", async () => {
  await using h = await startHarness({ models: MODELS });
  const speech = await h.post("/v1/audio/speech", {
    model: "acme/chat",
    input: "hi",
    voice: "alloy",
  });
  assert.equal(speech.status, 400);
  await errorOf(speech);
  const transcription = await transcribe(h, audioParts("acme/chat", makeWav({ seconds: 1 })));
  assert.equal(transcription.status, 400);
  await errorOf(transcription);
  // A model of another kind sent to the chat endpoint is rejected too.
  for (const model of ["acme/whisper", "acme/tts"]) {
    const chat = await h.post("/v1/chat/completions", {
      model,
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(chat.status, 400, model);
    await errorOf(chat);
  }
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("non-chat endpoints — a bad key is 401 on all three", async () => {
  await using h = await startHarness({ models: MODELS });
  const bad = { authorization: "Bearer sk-ex-" + "A".repeat(43) };
  const embed = await h.post("/v1/embeddings", { model: "acme/embed", input: "hi" }, bad);
  assert.equal(embed.status, 401);
  await embed.body?.cancel();
  const speech = await h.post(
    "/v1/audio/speech",
    { model: "acme/tts", input: "hi", voice: "alloy" },
    bad,
  );
  assert.equal(speech.status, 401);
  await speech.body?.cancel();
  const transcription = await fetch(`${h.url}/v1/audio/transcriptions`, {
    method: "POST",
    headers: bad,
    body: (() => {
      const form = new FormData();
      form.append("model", "acme/whisper");
      form.append("file", new File([makeWav({ seconds: 1 })], "a.wav"));
      return form;
    })(),
  });
  assert.equal(transcription.status, 401);
  await transcription.body?.cancel();
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("non-chat endpoints — an organization without credit gets 402 insufficient_credits", async () => {
  await using h = await startHarness({ models: MODELS, credits: 0 });
  const embed = await h.post("/v1/embeddings", { model: "acme/embed", input: "hi" });
  assert.equal(embed.status, 402);
  assert.equal((await errorOf(embed)).code, "insufficient_credits");
  const speech = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "hi",
    voice: "alloy",
  });
  assert.equal(speech.status, 402);
  assert.equal((await errorOf(speech)).code, "insufficient_credits");
  const transcription = await transcribe(h, audioParts("acme/whisper", makeWav({ seconds: 1 })));
  assert.equal(transcription.status, 402);
  assert.equal((await errorOf(transcription)).code, "insufficient_credits");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("non-chat endpoints — a provider 4xx in the error shape is passed through unchanged", async () => {
  await using h = await startHarness({
    models: [
      embeddingModel("acme/embed", ["sim-embed+fail-422", "sim-embed-standby"]),
      transcriptionModel("acme/whisper", ["sim-whisper+fail-422", "sim-whisper-standby"]),
      speechModel("acme/tts", "sim-tts+fail-422"),
    ],
  });
  const provider = await failureResponse(422, false, "req_x").json();
  // The provider's own body; a `null` code is filled in (the Error object has string codes).
  const expected = {
    ...provider,
    error: { ...provider.error, code: provider.error.code ?? "upstream_invalid_request" },
  };
  const answers = [
    await h.post("/v1/embeddings", { model: "acme/embed", input: "hi" }),
    await transcribe(h, audioParts("acme/whisper", makeWav({ seconds: 1 }))),
    await h.post("/v1/audio/speech", { model: "acme/tts", input: "hi", voice: "alloy" }),
  ];
  for (const answer of answers) {
    assert.equal(answer.status, 422);
    assert.deepEqual(await answer.json(), expected);
  }
  // A client error is not a reason to try the standby.
  assert.equal(h.sim.requests.length, 3);
});

Deno.test("embeddings — a provider that throttles gives 429 upstream_rate_limited", async () => {
  await using h = await startHarness({
    models: [embeddingModel("acme/embed", "sim-embed+fail-429")],
  });
  const response = await h.post("/v1/embeddings", { model: "acme/embed", input: "hi" });
  assert.equal(response.status, 429);
  assert.equal((await errorOf(response)).code, "upstream_rate_limited");
});

Deno.test("non-chat endpoints — stream false (or absent) is accepted", async () => {
  await using h = await startHarness({ models: MODELS });
  const embed = await h.post("/v1/embeddings", {
    model: "acme/embed",
    input: "hi",
    stream: false,
  });
  assert.equal(embed.status, 200);
  await embed.body?.cancel();
  const speech = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "hi",
    voice: "alloy",
    stream: false,
  });
  assert.equal(speech.status, 200);
  await speech.body?.cancel();
  const transcription = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), "a.wav", [
      { name: "stream", value: "false" },
    ]),
  );
  assert.equal(transcription.status, 200);
  await transcription.body?.cancel();
  assert.equal(h.sim.requests.length, 3);
});

// Fresh keys at rpm 2, several rounds: an in-memory count of not-yet-durable increments that
// overlaps the durable bucket shows up as a premature 429 on the second request (seen in
// most rounds before gate.ts sampled its pending count before the read).
Deno.test("non-chat endpoints — the per-key RPM limit answers 429 rate_limit_exceeded", async () => {
  const midMinute = 1_800_000_030_000; // far from a bucket rollover: the window is exact
  await using h = await startHarness({ models: MODELS, now: () => midMinute });
  for (let round = 0; round < 10; round++) {
    const key = await h.admin(["key", "create"], { org: h.org, rpm: "2" });
    const auth = { authorization: `Bearer ${String(key.key)}` };
    const first = await h.post("/v1/embeddings", { model: "acme/embed", input: "hi" }, auth);
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const second = await h.post(
      "/v1/audio/speech",
      { model: "acme/tts", input: "hi", voice: "alloy" },
      auth,
    );
    assert.equal(second.status, 200, `round ${round}: the second request within the minute`);
    await second.body?.cancel();
    const third = await h.post("/v1/embeddings", { model: "acme/embed", input: "hi" }, auth);
    assert.equal(third.status, 429, `round ${round}: a third request within the minute`);
    assert.equal((await errorOf(third)).code, "rate_limit_exceeded");
  }
});
