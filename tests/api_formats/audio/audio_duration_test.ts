import assert from "node:assert/strict";
import {
  billableSeconds,
  measureAudioSeconds,
} from "../../../src/api_formats/audio/audio_duration.ts";
import { GatewayError } from "../../../src/errors.ts";
import { makeWav, readFixture } from "../../helpers/audio.ts";

function isFileError(error: unknown): boolean {
  assert.ok(error instanceof GatewayError);
  assert.equal(error.status, 400);
  assert.equal(error.code, "file");
  assert.equal(error.param, "file");
  return true;
}

Deno.test("measureAudioSeconds — a generated WAV of 2.3 s measures 2.3 s and bills 3", async () => {
  const measured = await measureAudioSeconds(makeWav({ seconds: 2.3 }));
  assert.equal(measured.extension, "wav");
  assert.equal(measured.mimeType, "audio/wav");
  assert.ok(Math.abs(measured.seconds - 2.3) < 1e-9, `measured ${measured.seconds}`);
  assert.equal(billableSeconds(measured.seconds), 3);
});

Deno.test("measureAudioSeconds — stereo 16 kHz WAV of exactly 2 s bills 2", async () => {
  const measured = await measureAudioSeconds(
    makeWav({ seconds: 2, sampleRate: 16000, channels: 2 }),
  );
  assert.equal(measured.seconds, 2);
  assert.equal(billableSeconds(measured.seconds), 2);
});

const FIXTURES = [
  { file: "tone_1500ms.mp3", extension: "mp3", mimeType: "audio/mpeg", seconds: 1.656 },
  { file: "tone_1500ms_noxing.mp3", extension: "mp3", mimeType: "audio/mpeg", seconds: 1.656 },
  { file: "tone_1500ms.ogg", extension: "ogg", mimeType: "audio/ogg", seconds: 1.5 },
  { file: "tone_1500ms.flac", extension: "flac", mimeType: "audio/flac", seconds: 1.5 },
  { file: "tone_1500ms.m4a", extension: "m4a", mimeType: "audio/mp4", seconds: 1.628 },
  { file: "tone_1500ms.webm", extension: "webm", mimeType: "audio/webm", seconds: 1.508 },
] as const;

for (const fixture of FIXTURES) {
  Deno.test(`measureAudioSeconds — ${fixture.file} is ${fixture.extension}, ${fixture.seconds} s`, async () => {
    const measured = await measureAudioSeconds(await readFixture(fixture.file));
    assert.equal(measured.extension, fixture.extension);
    assert.equal(measured.mimeType, fixture.mimeType);
    assert.ok(Math.abs(measured.seconds - fixture.seconds) < 0.01, `measured ${measured.seconds}`);
    assert.equal(billableSeconds(measured.seconds), 2);
  });
}

Deno.test("measureAudioSeconds — the container decides, not the declared type", async () => {
  const measured = await measureAudioSeconds(await readFixture("tone_1500ms.ogg"), "audio/mpeg");
  assert.equal(measured.extension, "ogg");
  const wav = await measureAudioSeconds(makeWav({ seconds: 1 }), "audio/webm");
  assert.equal(wav.extension, "wav");
});

Deno.test("measureAudioSeconds — garbage, empty and truncated audio are 400 file", async () => {
  const noise = new Uint8Array(4000).map((_, i) => (i * 7919) % 251);
  await assert.rejects(measureAudioSeconds(noise), isFileError);
  await assert.rejects(measureAudioSeconds(noise, "audio/mpeg"), isFileError);
  await assert.rejects(measureAudioSeconds(new Uint8Array(0)), isFileError);
  await assert.rejects(measureAudioSeconds(makeWav({ seconds: 0 })), isFileError);
  const text = new TextEncoder().encode("RIFF, but not really a wave file at all");
  await assert.rejects(measureAudioSeconds(text), isFileError);
});

Deno.test("billableSeconds — per started second, minimum one, float noise tolerated", () => {
  assert.equal(billableSeconds(0), 1);
  assert.equal(billableSeconds(0.2), 1);
  assert.equal(billableSeconds(1), 1);
  assert.equal(billableSeconds(1.000001 + 1e-9), 2);
  assert.equal(billableSeconds(2.0000001), 2);
  assert.equal(billableSeconds(0.1 + 0.2 + 1.7), 2);
  assert.equal(billableSeconds(2.01), 3);
  assert.equal(billableSeconds(3599.5), 3600);
  assert.throws(() => billableSeconds(Number.NaN), RangeError);
  assert.throws(() => billableSeconds(-1), RangeError);
});
