import assert from "node:assert/strict";
import OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
} from "openai/resources/chat/completions";
import {
  ANSWER_TEXT,
  type OpenAISimulator,
  type OpenAISimulatorOptions,
  REASONING_SIGNATURE,
  REASONING_TEXT,
  SECONDS_PER_CHARACTER,
  startOpenAISimulator,
  TRANSCRIPT_TEXT,
} from "../../scripts/simulator/openai/mod.ts";

async function withSimulator(
  fn: (sim: OpenAISimulator, client: OpenAI) => Promise<void>,
  options: OpenAISimulatorOptions = {},
): Promise<void> {
  await using sim = await startOpenAISimulator(options);
  const client = new OpenAI({ baseURL: sim.url, apiKey: options.apiKey ?? "x", maxRetries: 0 });
  await fn(sim, client);
}

const user = (content: string) => ({ role: "user" as const, content });
const weatherTools = [{
  type: "function" as const,
  function: {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { location: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["location", "unit"],
    },
  },
}, {
  type: "function" as const,
  function: { name: "get_time", parameters: { type: "object", properties: {}, required: [] } },
}];

Deno.test("startOpenAISimulator — non-stream chat answers fixed text with usage and records the request", () =>
  withSimulator(async (sim, client) => {
    const completion = await client.chat.completions.create({
      model: "mistral-small-2503",
      messages: [{ role: "system", content: "Be brief." }, user("Hello there, simulator")],
    });
    assert.equal(completion.object, "chat.completion");
    assert.equal(completion.model, "mistral-small-2503");
    assert.equal(completion.choices[0]?.message.content, ANSWER_TEXT);
    assert.equal(completion.choices[0]?.finish_reason, "stop");
    assert.equal(completion.usage?.prompt_tokens, 5);
    assert.equal(completion.usage?.completion_tokens, ANSWER_TEXT.split(" ").length);
    const recorded = sim.requests[0];
    assert.equal(recorded?.path, "/v1/chat/completions");
    assert.equal(recorded?.headers.authorization, "Bearer x");
    assert.deepEqual((recorded?.body as { messages: unknown[] }).messages.length, 2);

    const noUsage = await client.chat.completions.create({
      model: "m+no-usage",
      messages: [user("Hi")],
      max_completion_tokens: 3,
    });
    assert.equal(noUsage.usage, undefined);
    assert.equal(noUsage.choices[0]?.finish_reason, "length");
    assert.equal(noUsage.choices[0]?.message.content, ANSWER_TEXT.split(" ").slice(0, 3).join(" "));
  }));

Deno.test("startOpenAISimulator — stream with include_usage ends with a usage chunk before [DONE]", () =>
  withSimulator(async (sim, client) => {
    const chunks: ChatCompletionChunk[] = [];
    const stream = await client.chat.completions.create({
      model: "m+chunks-5+slow-1", // the paced path; the raw fetch below takes the one-write path
      messages: [user("Tell me something")],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(chunks[0]?.choices[0]?.delta.role, "assistant");
    const content = chunks.flatMap((c) =>
      c.choices[0]?.delta.content ? [c.choices[0].delta.content] : []
    );
    assert.equal(content.length, 5);
    assert.equal(content.join(""), ANSWER_TEXT);
    const last = chunks[chunks.length - 1];
    assert.deepEqual(last?.choices, []);
    assert.equal(last?.usage?.completion_tokens, ANSWER_TEXT.split(" ").length);
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    assert.equal(chunks[chunks.length - 2]?.choices[0]?.finish_reason, "stop");

    const raw = await fetch(`${sim.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [user("Hi")], stream: true }),
    });
    assert.match(raw.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events = (await raw.text()).split("\n\n").filter((e) => e !== "");
    assert.equal(events[events.length - 1], "data: [DONE]");
    assert.ok(!events.some((e) => e.includes('"usage"')), "no usage without include_usage");
  }));

Deno.test("startOpenAISimulator — streamed tool call is assembled by the SDK and the tool loop is validated", () =>
  withSimulator(async (_sim, client) => {
    const chunks: ChatCompletionChunk[] = [];
    const runner = client.chat.completions.stream({
      model: "m",
      messages: [user("Weather in Paris?")],
      tools: weatherTools,
    });
    runner.on("chunk", (chunk) => chunks.push(chunk));
    const final = await runner.finalChatCompletion();
    const message = final.choices[0]?.message;
    const call = message?.tool_calls?.[0];
    assert.equal(final.choices[0]?.finish_reason, "tool_calls");
    assert.equal(message?.content, null);
    assert.ok(call?.type === "function");
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { location: "Paris", unit: "c" });
    const fragments = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    assert.ok(fragments.length > 2);
    assert.deepEqual(fragments[0], {
      index: 0,
      id: call.id,
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
    assert.ok(
      fragments.slice(1).every((f) =>
        Object.keys(f).join() === "index,function" && f.function?.name === undefined
      ),
    );

    const parallel = await client.chat.completions.create({
      model: "m+parallel",
      messages: [user("Weather and time?")],
      tools: weatherTools,
    });
    assert.deepEqual(
      parallel.choices[0]?.message.tool_calls?.map((c) =>
        c.type === "function" ? c.function.name : ""
      ),
      ["get_weather", "get_time"],
    );

    const assistant = { role: "assistant" as const, content: null, tool_calls: [call] };
    const answered = await client.chat.completions.create({
      model: "m",
      tools: weatherTools,
      messages: [user("Weather?"), assistant, {
        role: "tool",
        tool_call_id: call.id,
        content: "18C",
      }],
    });
    assert.match(answered.choices[0]?.message.content ?? "", /received 1 tool result\b/);

    const wrongId = client.chat.completions.create({
      model: "m",
      messages: [user("Weather?"), assistant, {
        role: "tool",
        tool_call_id: "call_other",
        content: "18C",
      }],
    });
    await assert.rejects(
      wrongId,
      (e) => e instanceof OpenAI.BadRequestError && /call_other/.test(e.message),
    );
  }));

Deno.test("startOpenAISimulator — reasoning in message and stream deltas, hidden with exclude", () =>
  withSimulator(async (_sim, client) => {
    const request: ChatCompletionCreateParamsNonStreaming & { reasoning: object } = {
      model: "m",
      messages: [user("Think first")],
      reasoning: { effort: "high" },
    };
    const completion = await client.chat.completions.create(request);
    const message = completion.choices[0]?.message as unknown as Record<string, unknown>;
    assert.equal(message.reasoning, REASONING_TEXT);
    assert.deepEqual(message.reasoning_details, [{
      type: "reasoning.text",
      text: REASONING_TEXT,
      signature: REASONING_SIGNATURE,
      format: "anthropic-claude-v1",
      index: 0,
    }]);
    const reasoningTokens = REASONING_TEXT.split(" ").length;
    assert.equal(completion.usage?.completion_tokens_details?.reasoning_tokens, reasoningTokens);

    const excluded = { ...request, reasoning: { exclude: true } };
    const hidden = await client.chat.completions.create(excluded);
    const hiddenMessage = hidden.choices[0]?.message as unknown as Record<string, unknown>;
    assert.equal(hiddenMessage.reasoning, undefined);
    assert.equal(hidden.usage?.completion_tokens_details?.reasoning_tokens, reasoningTokens);

    const stream = await client.chat.completions.create({
      model: "m+reasoning",
      messages: [user("Think first")],
      stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = "";
    const signatures: string[] = [];
    for await (const chunk of stream) {
      const delta = (chunk.choices[0]?.delta ?? {}) as Record<string, unknown>;
      if (typeof delta.reasoning === "string") reasoning += delta.reasoning;
      for (const d of (delta.reasoning_details ?? []) as { signature?: string }[]) {
        if (d.signature !== undefined) signatures.push(d.signature);
      }
    }
    assert.equal(reasoning, REASONING_TEXT);
    assert.deepEqual(signatures, [REASONING_SIGNATURE]);
  }));

Deno.test("startOpenAISimulator — fail-429 and fail-500 become SDK errors; -raw is not JSON", () =>
  withSimulator(async (sim, client) => {
    await assert.rejects(
      client.chat.completions.create({ model: "m+fail-429", messages: [user("Hi")] }),
      (e) =>
        e instanceof OpenAI.RateLimitError && e.headers.get("retry-after") === "1" &&
        e.type === "rate_limit_error",
    );
    await assert.rejects(
      client.chat.completions.create({ model: "m+fail-500", messages: [user("Hi")], stream: true }),
      (e) => e instanceof OpenAI.InternalServerError && e.status === 500,
    );
    const raw = await fetch(`${sim.url}/embeddings`, {
      method: "POST",
      body: JSON.stringify({ model: "m+fail-502-raw", input: "x" }),
    });
    assert.equal(raw.status, 502);
    assert.equal(raw.headers.get("content-type"), "text/html");
    const text = await raw.text();
    assert.throws(() => JSON.parse(text), SyntaxError);
  }));

Deno.test("startOpenAISimulator — drop-after-3 makes SDK iteration throw; silent waits for the client", () =>
  withSimulator(async (_sim, client) => {
    const received: ChatCompletionChunk[] = [];
    const dropped = await client.chat.completions.create({
      model: "m+drop-after-3",
      messages: [user("Hi")],
      stream: true,
    });
    await assert.rejects(async () => {
      for await (const chunk of dropped) received.push(chunk);
    });
    assert.equal(received.length, 3);

    const controller = new AbortController();
    const silent = await client.chat.completions.create(
      { model: "m+silent", messages: [user("Hi")], stream: true },
      { signal: controller.signal },
    );
    const timer = setTimeout(() => controller.abort(), 30);
    let silentChunks = 0;
    for await (const _ of silent) silentChunks++; // the SDK ends iteration quietly on abort
    clearTimeout(timer);
    assert.ok(controller.signal.aborted, "only the client's abort ends a silent stream");
    assert.equal(silentChunks, 0);
  }));

Deno.test("startOpenAISimulator — embeddings in float and base64 (SDK default) agree", () =>
  withSimulator(async (sim, client) => {
    const viaBase64 = await client.embeddings.create({
      model: "mistral-embed",
      input: ["a b", "c"],
    });
    assert.equal((sim.requests[0]?.body as { encoding_format: string }).encoding_format, "base64");
    const viaFloat = await client.embeddings.create({
      model: "mistral-embed",
      input: ["a b", "c"],
      encoding_format: "float",
    });
    assert.equal(viaBase64.data.length, 2);
    assert.equal(viaBase64.data[0]?.embedding.length, 8);
    assert.deepEqual(Array.from(viaBase64.data[0]?.embedding ?? []), viaFloat.data[0]?.embedding);
    assert.notDeepEqual(viaFloat.data[0]?.embedding, viaFloat.data[1]?.embedding);
    assert.deepEqual(viaFloat.usage, { prompt_tokens: 3, total_tokens: 3 });
    const wide = await client.embeddings.create({ model: "e", input: "x", dimensions: 32 });
    assert.equal(wide.data[0]?.embedding.length, 32);
  }));

Deno.test("startOpenAISimulator — speech returns a valid WAV and tagged compressed formats", () =>
  withSimulator(async (_sim, client) => {
    const input = "Hello from the simulator";
    const wav = await client.audio.speech.create({
      model: "tts-1",
      input,
      voice: "alloy",
      response_format: "wav",
    });
    assert.equal(wav.headers.get("content-type"), "audio/wav");
    const bytes = new Uint8Array(await wav.arrayBuffer());
    const view = new DataView(bytes.buffer);
    const ascii = (at: number) => String.fromCharCode(...bytes.slice(at, at + 4));
    assert.deepEqual([ascii(0), ascii(8), ascii(12), ascii(36)], ["RIFF", "WAVE", "fmt ", "data"]);
    assert.equal(view.getUint32(4, true), bytes.length - 8);
    assert.equal(view.getUint16(20, true), 1);
    assert.equal(view.getUint16(22, true), 1);
    assert.equal(view.getUint32(24, true), 24000);
    assert.equal(view.getUint16(34, true), 16);
    assert.equal(
      view.getUint32(40, true),
      2 * Math.round(input.length * SECONDS_PER_CHARACTER * 24000),
    );

    const wav16k = await client.audio.speech.create({
      model: "tts+16k",
      input,
      voice: "alloy",
      response_format: "wav",
    });
    assert.equal(new DataView(await wav16k.arrayBuffer()).getUint32(24, true), 16000);
    const expected = {
      mp3: ["audio/mpeg", [0xff, 0xf3]],
      opus: ["audio/ogg", [0x4f, 0x67, 0x67, 0x53]],
      flac: ["audio/flac", [0x66, 0x4c, 0x61, 0x43]],
    } as const;
    for (const [format, [type, magic]] of Object.entries(expected)) {
      const res = await client.audio.speech.create({
        model: "tts-1",
        input,
        voice: "alloy",
        response_format: format as "mp3",
      });
      assert.equal(res.headers.get("content-type"), type);
      assert.deepEqual([...new Uint8Array(await res.arrayBuffer()).slice(0, magic.length)], [
        ...magic,
      ]);
    }
  }));

Deno.test("startOpenAISimulator — transcription multipart is recorded without its content", () =>
  withSimulator(async (sim, client) => {
    const audio = new TextEncoder().encode("SECRET-AUDIO-CONTENT".repeat(10));
    const result = await client.audio.transcriptions.create({
      file: new File([audio], "clip.wav", { type: "audio/wav" }),
      model: "whisper-large-v3",
      language: "en",
    });
    assert.equal(result.text, TRANSCRIPT_TEXT);
    assert.deepEqual(sim.requests[0]?.body, {
      fields: { model: "whisper-large-v3", language: "en" },
      files: [{
        field: "file",
        filename: "clip.wav",
        contentType: "audio/wav",
        size: audio.length,
      }],
    });
    assert.ok(!JSON.stringify(sim.requests).includes("SECRET-AUDIO"));
    const text = await client.audio.transcriptions.create({
      file: new File([audio], "clip.wav", { type: "audio/wav" }),
      model: "whisper-large-v3",
      response_format: "text",
    });
    assert.equal(String(text).trim(), TRANSCRIPT_TEXT);
  }));

Deno.test("startOpenAISimulator — rejects a wrong key, unknown roles and malformed JSON; lists models", () =>
  withSimulator(async (sim) => {
    const wrong = new OpenAI({ baseURL: sim.url, apiKey: "wrong", maxRetries: 0 });
    await assert.rejects(wrong.models.list(), OpenAI.AuthenticationError);
    const client = new OpenAI({ baseURL: sim.url, apiKey: "secret", maxRetries: 0 });
    await assert.rejects(
      client.chat.completions.create({
        model: "m",
        messages: [{ role: "robot", content: "Hi" } as unknown as ReturnType<typeof user>],
      }),
      (e) => e instanceof OpenAI.BadRequestError && e.param === "messages[0].role",
    );
    const malformed = await fetch(`${sim.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer secret", "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(malformed.status, 400);
    const body = await malformed.json();
    assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
    await client.chat.completions.create({
      model: "scaleway-llama+slow-1",
      messages: [user("Hi")],
    });
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.ok(ids.includes("scaleway-llama+slow-1"));
  }, { apiKey: "secret" }));

Deno.test("startOpenAISimulator — /v1/moderations answers in Mistral's shape; jailbreak-<percent>, fail-<status> and bad input", () =>
  withSimulator(async (sim) => {
    const post = (body: unknown) =>
      fetch(`${sim.url}/moderations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const clean = await post({ model: "mistral-moderation-2603", input: ["Hello", "World"] });
    assert.equal(clean.status, 200);
    const answer = await clean.json();
    assert.equal(answer.model, "mistral-moderation-2603");
    assert.match(answer.id, /^mod-/);
    assert.equal(answer.results.length, 2);
    assert.deepEqual(Object.keys(answer.results[0].category_scores), [
      "sexual",
      "hate_and_discrimination",
      "violence_and_threats",
      "dangerous",
      "criminal",
      "selfharm",
      "health",
      "financial",
      "law",
      "pii",
      "jailbreaking",
    ]);
    assert.equal(answer.results[0].categories.jailbreaking, false);

    const flagged = await (await post({ model: "m+jailbreak-90", input: "x" })).json();
    assert.equal(flagged.results.length, 1, "a single string is one input");
    assert.equal(flagged.results[0].category_scores.jailbreaking, 0.9);
    assert.equal(flagged.results[0].categories.jailbreaking, true);

    const failed = await post({ model: "m+fail-503", input: ["x"] });
    assert.equal(failed.status, 503);
    await failed.body?.cancel();
    const bad = await post({ model: "m", input: 3 });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.param, "input");
    assert.equal(sim.requests.filter((r) => r.path === "/v1/moderations").length, 4);
  }));

Deno.test("simulator — wait-<ms> holds the whole answer back, then answers as without it", async () => {
  await withSimulator(async (sim, client) => {
    for (const stream of [false, true]) {
      const plain = await fetch(`${sim.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer x" },
        body: JSON.stringify({ model: "m+chunks-5", stream, messages: [user("hi")] }),
      });
      const plainText = await plain.text();
      const started = performance.now();
      const waited = await fetch(`${sim.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer x" },
        body: JSON.stringify({ model: "m+chunks-5+wait-60", stream, messages: [user("hi")] }),
      });
      // The delay is the behaviour under test (a lower bound), not a speed.
      assert.ok(performance.now() - started >= 55, "answered before its wait");
      const waitedText = await waited.text();
      // Same answer but for the ids, the timestamps and the model name.
      const shape = (text: string) =>
        text.replace(/chatcmpl-sim[0-9a-z]+/g, "ID").replace(/"created":\d+/g, "C")
          .replaceAll("m+chunks-5+wait-60", "m+chunks-5");
      assert.equal(shape(waitedText), shape(plainText));
    }
    const completion = await client.chat.completions.create({
      model: "m+wait-1",
      messages: [user("hi")],
    });
    assert.ok((completion.choices[0]?.message.content ?? "").length > 0);
  });
});

Deno.test("simulator — chatWaitMs makes every chat answer wait, whatever its model is named", async () => {
  await withSimulator(async (_sim, client) => {
    const started = performance.now();
    const completion = await client.chat.completions.create({
      model: "m+chunks-2",
      messages: [user("hi")],
    });
    // The delay is the behaviour under test (a lower bound), not a speed.
    assert.ok(performance.now() - started >= 55, "answered before the simulator's wait");
    assert.ok((completion.choices[0]?.message.content ?? "").length > 0);
  }, { chatWaitMs: 60 });
});
