import assert from "node:assert/strict";
import { parseMultipartForm } from "../../../src/api_formats/audio/multipart.ts";
import {
  toTranscriptionRequest,
  validateTranscriptionForm,
} from "../../../src/api_formats/audio/transcription_request.ts";
import { measureAudioSeconds } from "../../../src/api_formats/audio/audio_duration.ts";
import { openaiTranscription } from "../../../src/providers/openai/transcription.ts";
import { GatewayError } from "../../../src/errors.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";
import {
  chunkedStream,
  type FormPart,
  makeWav,
  multipartBody,
  openaiCall,
  readFixture,
  recordingUpstream,
  TEST_ENV,
} from "../../helpers/audio.ts";

const BOUNDARY = "sovra-transcription-test";

async function formOf(parts: FormPart[]) {
  return await parseMultipartForm(
    chunkedStream(multipartBody(BOUNDARY, parts), 4096),
    `multipart/form-data; boundary=${BOUNDARY}`,
  );
}

const wavPart = (filename = "clip.wav"): FormPart => ({
  name: "file",
  value: makeWav({ seconds: 0.5 }),
  filename,
  contentType: "audio/wav",
});

function gatewayError(status: number, code: string, param?: string) {
  return (error: unknown) => {
    assert.ok(error instanceof GatewayError, String(error));
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    if (param !== undefined) assert.equal(error.param, param);
    return true;
  };
}

Deno.test("validateTranscriptionForm — reads the known fields, json by default", async () => {
  const form = await formOf([
    { name: "model", value: "mistral/voxtral-mini" },
    { name: "language", value: "de" },
    { name: "temperature", value: "0.2" },
    { name: "user", value: "user-42" },
    { name: "timestamp_granularities[]", value: "word" },
    wavPart(),
  ]);
  const checked = validateTranscriptionForm(form);
  assert.equal(checked.model, "mistral/voxtral-mini");
  assert.equal(checked.user, "user-42");
  assert.deepEqual(checked.fields, { responseFormat: "json", language: "de", temperature: "0.2" });
});

Deno.test("validateTranscriptionForm — refuses stream, other formats, no model, no file", async () => {
  const base = [{ name: "model", value: "m" }, wavPart()];
  const check = async (parts: FormPart[]) => validateTranscriptionForm(await formOf(parts));
  await assert.rejects(
    check([...base, { name: "stream", value: "true" }]),
    gatewayError(400, "stream", "stream"),
  );
  assert.equal((await check([...base, { name: "stream", value: "false" }])).model, "m");
  assert.equal(
    (await check([...base, { name: "response_format", value: "text" }])).fields.responseFormat,
    "text",
  );
  for (const format of ["srt", "verbose_json", "vtt", "JSON"]) {
    await assert.rejects(
      check([...base, { name: "response_format", value: format }]),
      gatewayError(400, "response_format", "response_format"),
    );
  }
  await assert.rejects(check([wavPart()]), gatewayError(400, "invalid_request", "model"));
  await assert.rejects(
    check([{ name: "model", value: "m" }]),
    gatewayError(400, "invalid_request", "file"),
  );
  await assert.rejects(
    check([...base, { name: "temperature", value: "warm" }]),
    gatewayError(400, "invalid_request", "temperature"),
  );
});

Deno.test("openaiTranscription — the upstream sees audio.<detected ext>, never the client's name", async () => {
  await using upstream = recordingUpstream(() => Response.json({ text: "Hallo Welt" }));
  // The client calls an Ogg file "Private Meeting.mp3" and declares audio/mpeg.
  const ogg = await readFixture("tone_1500ms.ogg");
  const form = validateTranscriptionForm(
    await formOf([
      { name: "model", value: "mistral/voxtral-mini" },
      { name: "prompt", value: "Begrüßung" },
      { name: "file", value: ogg, filename: "Private Meeting.mp3", contentType: "audio/mpeg" },
    ]),
  );
  const measured = await measureAudioSeconds(form.file.bytes, form.file.contentType);
  const request = toTranscriptionRequest(form, measured);
  const call = openaiCall(upstream.baseUrl, "voxtral-mini-2507", { kind: "transcription" });
  const result = await openaiTranscription(request, call, { env: TEST_ENV });
  assert.deepEqual(JSON.parse(result.body), { text: "Hallo Welt" });
  assert.equal(result.contentType, "application/json");

  const [received] = upstream.received;
  assert.ok(received);
  assert.equal(received.path, "/v1/audio/transcriptions");
  assert.equal(received.headers.get("authorization"), "Bearer sk-upstream-test");
  const raw = new TextDecoder("latin1").decode(received.body);
  assert.equal(raw.includes("Private"), false);
  assert.equal(raw.includes("Meeting"), false);
  const sent = await new Request("http://x/", {
    method: "POST",
    headers: { "content-type": received.headers.get("content-type")! },
    body: received.body,
  }).formData();
  const file = sent.get("file");
  assert.ok(file instanceof File);
  assert.equal(file.name, "audio.ogg");
  assert.equal(file.type, "audio/ogg");
  assert.deepEqual(new Uint8Array(await file.arrayBuffer()), ogg);
  assert.equal(sent.get("model"), "voxtral-mini-2507");
  assert.equal(sent.get("prompt"), "Begrüßung");
  assert.equal(sent.get("response_format"), "json");
  assert.equal(sent.has("language"), false);
});

Deno.test("openaiTranscription — text format: plain text passes, JSON is reduced to its text", async () => {
  await using upstream = recordingUpstream((req) =>
    new TextDecoder().decode(req.body).includes('name="response_format"')
      ? new Response("plain transcript\n", { headers: { "content-type": "text/plain" } })
      : Response.json({ model: "voxtral", text: "from json", usage: { prompt_audio_seconds: 2 } })
  );
  const request = {
    audio: makeWav({ seconds: 0.2 }),
    fileName: "audio.wav",
    mimeType: "audio/wav",
    fields: { responseFormat: "text" as const },
  };
  const openai = openaiCall(upstream.baseUrl, "whisper-1", { kind: "transcription" });
  const plain = await openaiTranscription(request, openai, { env: TEST_ENV });
  assert.equal(plain.body, "plain transcript\n");
  assert.match(plain.contentType, /^text\/plain/);
  // A provider without response_format (Mistral) is not sent the field; its JSON is reduced.
  const mistral = openaiCall(upstream.baseUrl, "voxtral", {
    kind: "transcription",
    unsupported: ["response_format"],
  });
  const reduced = await openaiTranscription(request, mistral, { env: TEST_ENV });
  assert.equal(reduced.body, "from json");
  assert.match(reduced.contentType, /^text\/plain/);
});

Deno.test("openaiTranscription — 5xx is unavailable, a refused connection too", async () => {
  const upstream = recordingUpstream(() => new Response("busy", { status: 502 }));
  const request = {
    audio: makeWav({ seconds: 0.2 }),
    fileName: "audio.wav",
    mimeType: "audio/wav",
    fields: { responseFormat: "json" as const },
  };
  let closedUrl: string;
  try {
    const call = openaiCall(upstream.baseUrl, "whisper-1", { kind: "transcription" });
    closedUrl = upstream.baseUrl;
    await assert.rejects(
      openaiTranscription(request, call, { env: TEST_ENV }),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamFailure);
        assert.equal(error.kind, "unavailable");
        assert.equal(error.retryable, true);
        return true;
      },
    );
  } finally {
    await upstream.close();
  }
  const gone = openaiCall(closedUrl, "whisper-1", { kind: "transcription" });
  await assert.rejects(openaiTranscription(request, gone, { env: TEST_ENV }), (error: unknown) => {
    assert.ok(error instanceof UpstreamFailure);
    assert.equal(error.kind, "unavailable");
    return true;
  });
});
