/** POST /v1/audio/speech over real HTTP, written from the spec (gateway-api.md). */
import assert from "node:assert/strict";
import { startHarness } from "../../helpers/harness.ts";
import {
  ceilDiv,
  CHARACTER_PRICE,
  errorOf,
  GERMAN_SPEECH,
  onlyRow,
  speechModel,
} from "../../helpers/non_chat.ts";

const TTS = speechModel("acme/tts", "sim-tts");

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

Deno.test("speech — an unknown voice is refused with 400 listing the valid voices, before any provider call", async () => {
  await using h = await startHarness({ models: [TTS] });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "Hello there.",
    voice: "bogus-voice",
  });
  assert.equal(response.status, 400);
  const error = await errorOf(response);
  assert.equal(error.code, "voice");
  assert.match(error.message, /alloy/);
  assert.match(error.message, /nova/);
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("speech — input over the model's character limit is refused with no provider call", async () => {
  await using h = await startHarness({ models: [TTS, GERMAN_SPEECH] });
  const overGerman = await h.post("/v1/audio/speech", {
    model: "acme/tts-de",
    input: "ä".repeat(1001),
    voice: "klara",
  });
  assert.equal(overGerman.status, 400);
  await errorOf(overGerman);
  const overDefault = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "a".repeat(4097),
    voice: "alloy",
  });
  assert.equal(overDefault.status, 400);
  await errorOf(overDefault);
  assert.equal(h.sim.requests.length, 0);
  // Exactly at the German limit (1000 code points, 2000 UTF-8 bytes) is accepted.
  const atLimit = await h.post("/v1/audio/speech", {
    model: "acme/tts-de",
    input: "ä".repeat(1000),
    voice: "klara",
  });
  assert.equal(atLimit.status, 200);
  await atLimit.body?.cancel();
});

Deno.test("speech — the German model answers a 16 kHz mono WAV when no format is asked", async () => {
  await using h = await startHarness({ models: [GERMAN_SPEECH] });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts-de",
    input: "Guten Morgen, wie geht es Ihnen?",
    voice: "klara",
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^audio\/(wav|x-wav|wave)/);
  const audio = new Uint8Array(await response.arrayBuffer());
  assert.ok(audio.length > 44);
  assert.equal(ascii(audio, 0, 4), "RIFF");
  assert.equal(ascii(audio, 8, 4), "WAVE");
  assert.equal(ascii(audio, 12, 4), "fmt ");
  const view = new DataView(audio.buffer, audio.byteOffset, audio.byteLength);
  assert.equal(view.getUint16(22, true), 1, "mono");
  assert.equal(view.getUint32(24, true), 16_000, "16 kHz");
});

Deno.test("speech — the German model refuses response_format mp3 with 400", async () => {
  await using h = await startHarness({ models: [GERMAN_SPEECH] });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts-de",
    input: "Hallo",
    voice: "klara",
    response_format: "mp3",
  });
  assert.equal(response.status, 400);
  assert.equal((await errorOf(response)).code, "response_format");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("speech — a response_format outside the spec's list is 400 code response_format", async () => {
  await using h = await startHarness({ models: [TTS] });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "Hello",
    voice: "alloy",
    response_format: "ogg",
  });
  assert.equal(response.status, 400);
  assert.equal((await errorOf(response)).code, "response_format");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("speech — a normal model answers mp3 (audio/mpeg) by default", async () => {
  await using h = await startHarness({ models: [TTS] });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "Hello there.",
    voice: "nova",
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "audio/mpeg");
  const audio = new Uint8Array(await response.arrayBuffer());
  const id3 = ascii(audio, 0, 3) === "ID3";
  const frameSync = audio[0] === 0xff && ((audio[1] ?? 0) & 0xe0) === 0xe0;
  assert.ok(id3 || frameSync, "an MP3 stream");
});

Deno.test("speech — billed per Unicode code point of input, not bytes or UTF-16 units", async () => {
  await using h = await startHarness({ models: [TTS] });
  const input = "Grüße 😀"; // 7 code points, 8 UTF-16 units, 12 UTF-8 bytes
  assert.equal([...input].length, 7);
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input,
    voice: "alloy",
    user: "end-user-9",
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const row = await onlyRow(h);
  assert.equal(row.endpoint, "speech");
  assert.equal(row.status, 200);
  assert.equal(row.user, "end-user-9");
  assert.equal(row.characters, 7);
  // 7 × 15.000001 µEUR = 105.000007 → 106
  assert.equal(row.cost_micro_eur, ceilDiv(7n * BigInt(CHARACTER_PRICE), 1_000_000n));
  assert.equal(row.cost_micro_eur, 106);
});

Deno.test("speech — stream true is refused with 400", async () => {
  await using h = await startHarness({ models: [TTS] });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "Hello",
    voice: "alloy",
    stream: true,
  });
  assert.equal(response.status, 400);
  assert.equal((await errorOf(response)).code, "stream");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("speech — never falls back: a failing primary gives 502 and the standby gets nothing", async () => {
  await using h = await startHarness({
    models: [speechModel("acme/tts", ["sim-tts+fail-503", "sim-tts-standby"])],
  });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "Hello",
    voice: "alloy",
  });
  assert.equal(response.status, 502);
  assert.equal((await errorOf(response)).code, "upstream_error");
  const models = h.sim.requests.map((r) => (r.body as { model?: string }).model);
  assert.ok(models.length >= 1);
  assert.ok(models.every((m) => m === "sim-tts+fail-503"), `upstream saw ${models.join(", ")}`);
  const row = await onlyRow(h);
  assert.equal(row.status, 502);
  assert.equal(row.cost_micro_eur, 0);
  assert.equal((await h.store.getOrg(h.org))?.spent_micro_eur, 0);
});

Deno.test("speech — 4096 characters counted as code points, so 4096 emoji are accepted", async () => {
  await using h = await startHarness({ models: [speechModel("acme/tts", "sim-tts")] });
  const response = await h.post("/v1/audio/speech", {
    model: "acme/tts",
    input: "😀".repeat(4096),
    voice: "alloy",
    response_format: "wav",
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^audio\/(wav|x-wav|wave)/);
  await response.body?.cancel();
  const row = await onlyRow(h);
  assert.equal(row.characters, 4096);
});
