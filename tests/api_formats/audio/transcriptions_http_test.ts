/** POST /v1/audio/transcriptions over real HTTP: fields, privacy, measuring and billing. */
import assert from "node:assert/strict";
import { startHarness } from "../../helpers/harness.ts";
import { makeWav, readFixture } from "../../helpers/audio.ts";
import { TRANSCRIPT_TEXT } from "../../../scripts/simulator/openai/mod.ts";
import type { RecordedFile } from "../../../scripts/simulator/openai/mod.ts";
import {
  AUDIO_PRICE,
  audioParts,
  ceilDiv,
  errorOf,
  onlyRow,
  transcribe,
  transcriptionModel,
} from "../../helpers/non_chat.ts";

const WHISPER = transcriptionModel("acme/whisper", "sim-whisper");
const SECRET_NAME = "Secret Board Meeting.wav";

function audioCost(seconds: number): number {
  return ceilDiv(BigInt(seconds) * BigInt(AUDIO_PRICE), 3600n);
}

interface RecordedForm {
  fields: Record<string, string>;
  files: RecordedFile[];
}

Deno.test("transcriptions — a 2.3 s WAV is measured as 3 started seconds and billed exactly", async () => {
  await using h = await startHarness({ models: [WHISPER] });
  const response = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 2.3 }), "clip.wav", [
      { name: "user", value: "end-user-3" },
    ]),
  );
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(await response.json(), { text: TRANSCRIPT_TEXT });
  const row = await onlyRow(h);
  assert.equal(row.endpoint, "transcriptions");
  assert.equal(row.status, 200);
  assert.equal(row.user, "end-user-3");
  assert.equal(row.audio_seconds, 3);
  // 3 s × 360 001 µEUR/h = 300.0008… → 301
  assert.equal(row.cost_micro_eur, audioCost(3));
  assert.equal(row.cost_micro_eur, 301);
});

Deno.test("transcriptions — the client's file name never reaches the upstream or the metadata", async () => {
  await using h = await startHarness({ models: [WHISPER] });
  const response = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), SECRET_NAME),
  );
  assert.equal(response.status, 200);
  await response.body?.cancel();
  assert.equal(h.sim.requests.length, 1);
  const sent = h.sim.requests[0]!;
  const form = sent.body as RecordedForm;
  assert.equal(form.files.length, 1);
  assert.equal(form.files[0]?.filename, "audio.wav");
  assert.equal(form.fields.model, "sim-whisper");
  for (const [name, value] of Object.entries(sent.headers)) {
    assert.ok(!/Secret|Board|Meeting/.test(value), `header ${name} leaks the file name`);
  }
  for (const value of Object.values(form.fields)) {
    assert.ok(!/Secret|Board|Meeting/.test(value), "a form field leaks the file name");
  }
  const row = await onlyRow(h);
  assert.ok(!/Secret|Board|Meeting/.test(JSON.stringify(row)), "the row holds the file name");
  // Nothing anywhere in the store holds it.
  for await (const entry of h.store.kv.list({ prefix: [] })) {
    const text = JSON.stringify(
      [entry.key, entry.value],
      (_k, v) => typeof v === "bigint" ? String(v) : v,
    );
    assert.ok(!/secret board meeting/i.test(text), "the store holds the file name");
  }
});

Deno.test("transcriptions — the official SDK uploads a File and gets the transcript", async () => {
  await using h = await startHarness({ models: [WHISPER] });
  const result = await h.client.audio.transcriptions.create({
    file: new File([makeWav({ seconds: 1.2 })], "x.wav", { type: "audio/wav" }),
    model: "acme/whisper",
  });
  assert.equal(result.text, TRANSCRIPT_TEXT);
  const row = await onlyRow(h);
  assert.equal(row.audio_seconds, 2);
});

Deno.test("transcriptions — response_format text answers text/plain", async () => {
  await using h = await startHarness({ models: [WHISPER] });
  const response = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), "a.wav", [
      { name: "response_format", value: "text" },
    ]),
  );
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal((await response.text()).trim(), TRANSCRIPT_TEXT);
});

Deno.test("transcriptions — response_format srt is refused with 400 code response_format", async () => {
  await using h = await startHarness({ models: [WHISPER] });
  const response = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), "a.wav", [
      { name: "response_format", value: "srt" },
    ]),
  );
  assert.equal(response.status, 400);
  assert.equal((await errorOf(response)).code, "response_format");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("transcriptions — stream=true is refused with 400", async () => {
  await using h = await startHarness({ models: [WHISPER] });
  const response = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), "a.wav", [
      { name: "stream", value: "true" },
    ]),
  );
  assert.equal(response.status, 400);
  assert.equal((await errorOf(response)).code, "stream");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("transcriptions — unreadable audio is refused with 400 and no upstream call", async () => {
  await using h = await startHarness({ models: [WHISPER] });
  const noise = new Uint8Array(4096);
  crypto.getRandomValues(noise);
  noise.set([0x00, 0x01, 0x02, 0x03]); // never a container's magic number
  const response = await transcribe(h, audioParts("acme/whisper", noise, "noise.wav"));
  assert.equal(response.status, 400);
  await errorOf(response);
  assert.equal(h.sim.requests.length, 0);
  await h.flushed();
  const rows = await h.store.listRequests(h.org, 10);
  assert.ok(rows.every((r) => r.cost_micro_eur === 0));
});

const FIXTURES: ReadonlyArray<readonly [string, string]> = [
  ["tone_1500ms.mp3", "mp3"],
  ["tone_1500ms.ogg", "ogg"],
];
for (const [fixture, extension] of FIXTURES) {
  Deno.test(`transcriptions — an ${extension.toUpperCase()} fixture is measured and billed`, async () => {
    await using h = await startHarness({ models: [WHISPER] });
    const audio = await readFixture(fixture);
    const response = await transcribe(h, audioParts("acme/whisper", audio, "recording.bin"));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { text: TRANSCRIPT_TEXT });
    const form = h.sim.requests[0]?.body as RecordedForm;
    assert.equal(form.files[0]?.filename, `audio.${extension}`);
    assert.equal(form.files[0]?.size, audio.length);
    const row = await onlyRow(h);
    assert.equal(row.audio_seconds, 2); // 1.5–1.66 s: two started seconds
    assert.equal(row.cost_micro_eur, audioCost(2));
  });
}

Deno.test("transcriptions — a failing primary falls back to the standby route", async () => {
  await using h = await startHarness({
    models: [transcriptionModel("acme/whisper", ["sim-whisper+fail-503", "sim-whisper-standby"])],
  });
  const response = await transcribe(h, audioParts("acme/whisper", makeWav({ seconds: 1 })));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { text: TRANSCRIPT_TEXT });
  const models = h.sim.requests.map((r) => (r.body as { fields: { model: string } }).fields.model);
  assert.equal(models.at(-1), "sim-whisper-standby");
  assert.ok(models.includes("sim-whisper+fail-503"));
  const row = await onlyRow(h);
  // The catalog model that served; the standby that served it is the provider.
  assert.equal(row.served_model, "acme/whisper");
  assert.equal(row.provider, "sim-b");
  assert.equal(row.audio_seconds, 1);
});

Deno.test("transcriptions — a very short recording bills the minimum of one second", async () => {
  await using h = await startHarness({
    models: [transcriptionModel("acme/whisper", "sim-whisper")],
  });
  const response = await transcribe(h, audioParts("acme/whisper", makeWav({ seconds: 0.2 })));
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const row = await onlyRow(h);
  assert.equal(row.audio_seconds, 1);
  assert.equal(row.cost_micro_eur, ceilDiv(BigInt(AUDIO_PRICE), 3600n));
});

Deno.test("transcriptions — language, prompt and temperature reach the provider; user is kept in metadata", async () => {
  await using h = await startHarness({
    models: [transcriptionModel("acme/whisper", "sim-whisper")],
  });
  const response = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), "a.wav", [
      { name: "language", value: "de" },
      { name: "prompt", value: "Vorstandssitzung" },
      { name: "temperature", value: "0.2" },
      { name: "user", value: "end-user-5" },
    ]),
  );
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const fields = (h.sim.requests[0]?.body as { fields: Record<string, string> }).fields;
  assert.equal(fields.language, "de");
  assert.equal(fields.prompt, "Vorstandssitzung");
  assert.equal(Number(fields.temperature), 0.2);
  const row = await onlyRow(h);
  assert.equal(row.user, "end-user-5");
});
