import assert from "node:assert/strict";
import { z } from "zod";
import {
  countCharacters,
  parseSpeechRequest,
  SpeechRequestSchema,
  validateSpeechRequest,
} from "../../../src/api_formats/audio/speech_request.ts";
import { openaiSpeech } from "../../../src/providers/openai/speech.ts";
import { Model } from "../../../src/catalog/schema.ts";
import { GatewayError } from "../../../src/errors.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";
import { openaiCall, recordingUpstream, TEST_ENV } from "../../helpers/audio.ts";

const english = Model.parse({
  id: "openai/tts-1",
  kind: "speech",
  sovereignty: "pragmatic",
  voices: ["alloy", "nova"],
  routes: [{ provider: "openai", upstream_model: "tts-1" }],
});
const german = Model.parse({
  id: "tts-de/thorsten",
  kind: "speech",
  sovereignty: "strict",
  voices: ["thorsten"],
  limits: { max_input_characters: 1000, response_formats: ["wav"] },
  routes: [{ provider: "tts-de", upstream_model: "thorsten-vits" }],
});

function refused(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    assert.equal(error.code, field);
    assert.equal(error.param, field);
    return true;
  };
}

const body = (extra: Record<string, unknown> = {}) =>
  parseSpeechRequest({ model: english.id, input: "Hello", voice: "alloy", ...extra });

Deno.test("countCharacters — counts Unicode code points", () => {
  assert.equal(countCharacters("äöü😀"), 4);
  assert.equal("äöü😀".length, 5);
  assert.equal(countCharacters(""), 0);
});

Deno.test("validateSpeechRequest — defaults to mp3 and reports the characters", () => {
  const speech = validateSpeechRequest(body({ input: "äöü😀" }), english);
  assert.deepEqual(speech, {
    input: "äöü😀",
    voice: "alloy",
    responseFormat: "mp3",
    characters: 4,
  });
});

Deno.test("validateSpeechRequest — an unknown voice is refused, the message lists the voices", () => {
  assert.throws(() => validateSpeechRequest(body({ voice: "onyx" }), english), (error) => {
    refused("voice")(error);
    assert.match((error as Error).message, /'alloy', 'nova'/);
    return true;
  });
});

Deno.test("validateSpeechRequest — the German model: 1000 characters, wav by default, wav only", () => {
  const ok = parseSpeechRequest({ model: german.id, input: "ä".repeat(1000), voice: "thorsten" });
  assert.equal(validateSpeechRequest(ok, german).responseFormat, "wav");
  // 1000 emoji are 2000 UTF-16 units but 1000 characters: still accepted.
  const emoji = parseSpeechRequest({
    model: german.id,
    input: "😀".repeat(1000),
    voice: "thorsten",
  });
  assert.equal(validateSpeechRequest(emoji, german).characters, 1000);
  const long = parseSpeechRequest({ model: german.id, input: "a".repeat(1001), voice: "thorsten" });
  assert.throws(() => validateSpeechRequest(long, german), refused("input"));
  const mp3 = parseSpeechRequest({
    model: german.id,
    input: "Hallo",
    voice: "thorsten",
    response_format: "mp3",
  });
  assert.throws(() => validateSpeechRequest(mp3, german), (error) => {
    refused("response_format")(error);
    assert.match((error as Error).message, /'wav'/);
    return true;
  });
  assert.throws(
    () => validateSpeechRequest(parseSpeechRequest({ ...mp3, voice: "alloy" }), german),
    refused("voice"),
  );
});

Deno.test("validateSpeechRequest — 4096 characters by default", () => {
  assert.equal(validateSpeechRequest(body({ input: "x".repeat(4096) }), english).characters, 4096);
  assert.throws(
    () => validateSpeechRequest(body({ input: "x".repeat(4097) }), english),
    refused("input"),
  );
});

Deno.test("parseSpeechRequest — stream, bad formats and missing fields are 400", () => {
  assert.throws(() => body({ stream: true }), refused("stream"));
  assert.throws(() => body({ stream: "yes" }), refused("stream"));
  assert.equal(body({ stream: false }).input, "Hello");
  assert.throws(() => body({ response_format: "ogg" }), refused("response_format"));
  assert.throws(() => parseSpeechRequest({ model: "m", voice: "alloy" }), (error) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.code, "invalid_request");
    assert.equal(error.param, "input");
    assert.equal(error.message, "Missing required field 'input'.");
    return true;
  });
  assert.throws(() => parseSpeechRequest([1]), (error) => {
    assert.ok(error instanceof GatewayError);
    return error.code === "invalid_request";
  });
});

Deno.test("SpeechRequestSchema — converts to JSON Schema", () => {
  const schema = z.toJSONSchema(SpeechRequestSchema, { io: "input" }) as {
    required?: string[];
    properties?: Record<string, { enum?: string[] }>;
  };
  assert.deepEqual(schema.required?.sort(), ["input", "model", "voice"]);
  assert.deepEqual(schema.properties?.response_format?.enum, [
    "mp3",
    "wav",
    "opus",
    "aac",
    "flac",
    "pcm",
  ]);
});

Deno.test("openaiSpeech — posts the upstream model and relays the audio stream", async () => {
  const audio = new Uint8Array(200_000).map((_, i) => i % 256);
  await using upstream = recordingUpstream(() =>
    new Response(audio, { headers: { "content-type": "audio/wav" } })
  );
  const call = openaiCall(upstream.baseUrl, "thorsten-vits", { kind: "speech" });
  const result = await openaiSpeech(
    { input: "Hallo", voice: "thorsten", responseFormat: "wav" },
    call,
    { env: TEST_ENV },
  );
  assert.equal(result.contentType, "audio/wav");
  assert.deepEqual(new Uint8Array(await new Response(result.audio).arrayBuffer()), audio);
  const [received] = upstream.received;
  assert.equal(received?.path, "/v1/audio/speech");
  assert.equal(received?.headers.get("authorization"), "Bearer sk-upstream-test");
  assert.deepEqual(JSON.parse(new TextDecoder().decode(received?.body)), {
    model: "thorsten-vits",
    input: "Hallo",
    voice: "thorsten",
    response_format: "wav",
  });
});

Deno.test("openaiSpeech — derives the type for octet-stream and unwraps JSON audio", async () => {
  await using upstream = recordingUpstream((req) => {
    const format = JSON.parse(new TextDecoder().decode(req.body)).response_format;
    return format === "mp3"
      ? new Response(new Uint8Array([1, 2, 3]), {
        headers: { "content-type": "application/octet-stream" },
      })
      : Response.json({ audio_data: btoa("\x04\x05") });
  });
  const call = openaiCall(upstream.baseUrl, "voxtral-tts", { kind: "speech" });
  const mp3 = await openaiSpeech({ input: "a", voice: "v", responseFormat: "mp3" }, call, {
    env: TEST_ENV,
  });
  assert.equal(mp3.contentType, "audio/mpeg");
  assert.deepEqual(
    new Uint8Array(await new Response(mp3.audio).arrayBuffer()),
    new Uint8Array([1, 2, 3]),
  );
  const flac = await openaiSpeech({ input: "a", voice: "v", responseFormat: "flac" }, call, {
    env: TEST_ENV,
  });
  assert.equal(flac.contentType, "audio/flac");
  assert.deepEqual(
    new Uint8Array(await new Response(flac.audio).arrayBuffer()),
    new Uint8Array([4, 5]),
  );
});

Deno.test("openaiSpeech — upstream errors become UpstreamFailures", async () => {
  const statuses = [429, 503, 401, 400, 422];
  let next = 0;
  await using upstream = recordingUpstream(() => {
    const status = statuses[next++]!;
    return status === 400
      ? Response.json({ error: { message: "Bad voice", type: "invalid_request_error" } }, {
        status,
      })
      : new Response("nope", { status });
  });
  const call = openaiCall(upstream.baseUrl, "tts-1", { kind: "speech" });
  const kinds: Array<[string, number | undefined]> = [];
  for (const _ of statuses) {
    await assert.rejects(
      openaiSpeech({ input: "a", voice: "v", responseFormat: "mp3" }, call, { env: TEST_ENV }),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamFailure);
        kinds.push([error.kind, error.status]);
        if (error.kind === "passthrough") assert.match(error.body ?? "", /Bad voice/);
        return true;
      },
    );
  }
  assert.deepEqual(kinds, [
    ["rate_limited", 429],
    ["unavailable", 503],
    ["auth", 401],
    ["passthrough", 400],
    ["invalid_request", 422],
  ]);
});
