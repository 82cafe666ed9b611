/**
 * Shared pieces of the HTTP tests of the non-chat endpoints: catalog entries for each kind,
 * a multipart upload against a harness, and the metadata row of the one request a test made.
 */
import assert from "node:assert/strict";
import type { Harness, TestModel } from "./harness.ts";
import { type FormPart, multipartBody } from "./audio.ts";
import type { RequestRecord } from "../../src/state/records.ts";

export const EMBED_PRICE = 2_500_000; // micro-EUR per million tokens
export const AUDIO_PRICE = 360_001; // micro-EUR per hour
export const CHARACTER_PRICE = 15_000_001; // micro-EUR per million characters

export function embeddingModel(id: string, upstream: string | string[]): TestModel {
  return {
    id,
    kind: "embedding",
    sovereignty: "strict",
    pricing: { prompt_micro_eur_per_million: EMBED_PRICE },
    supported_parameters: [],
    routes: routes(upstream),
  };
}

export function transcriptionModel(id: string, upstream: string | string[]): TestModel {
  return {
    id,
    kind: "transcription",
    sovereignty: "strict",
    pricing: { audio_micro_eur_per_hour: AUDIO_PRICE },
    supported_parameters: [],
    routes: routes(upstream),
  };
}

export function speechModel(
  id: string,
  upstream: string | string[],
  extra: Partial<TestModel> = {},
): TestModel {
  return {
    id,
    kind: "speech",
    sovereignty: "strict",
    pricing: { character_micro_eur_per_million: CHARACTER_PRICE },
    supported_parameters: [],
    voices: ["alloy", "nova"],
    routes: routes(upstream),
    ...extra,
  };
}

/** The German model of the spec: 1000 characters, one voice, wav only, 16 kHz mono. */
export const GERMAN_SPEECH = speechModel("acme/tts-de", "sim-tts-de+16k", {
  voices: ["klara"],
  limits: { max_input_characters: 1000, response_formats: ["wav"] },
});

/** Primary on `sim-a`, standbys on `sim-b`. */
function routes(upstream: string | string[]): TestModel["routes"] {
  const list = Array.isArray(upstream) ? upstream : [upstream];
  return list.map((u, i) => ({ provider: i === 0 ? "sim-a" : "sim-b", upstream_model: u }));
}

export const BOUNDARY = "sovra-test-boundary-7Hq2";

/** Posts a multipart transcription form (built in memory) with the harness key. */
export function transcribe(h: Harness, parts: readonly FormPart[]): Promise<Response> {
  return fetch(`${h.url}/v1/audio/transcriptions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${h.key}`,
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
    },
    body: multipartBody(BOUNDARY, parts) as Uint8Array<ArrayBuffer>,
  });
}

/** The parts of a transcription request for `model` with one audio file. */
export function audioParts(
  model: string,
  audio: Uint8Array,
  filename = "clip.wav",
  extra: FormPart[] = [],
): FormPart[] {
  return [
    { name: "model", value: model },
    ...extra,
    { name: "file", value: audio, filename, contentType: "application/octet-stream" },
  ];
}

/** The single metadata row the test's requests left (after every write is durable). */
export async function onlyRow(h: Harness): Promise<RequestRecord> {
  await h.flushed();
  const rows = await h.store.listRequests(h.org, 10);
  assert.equal(rows.length, 1, `expected one metadata row, got ${rows.length}`);
  return rows[0]!;
}

export interface ErrorBody {
  error: { message: string; type: string; code: string };
}

/** Reads an error answer, checking the spec's error object shape. */
export async function errorOf(response: Response): Promise<ErrorBody["error"]> {
  const body = await response.json() as ErrorBody;
  assert.equal(typeof body.error?.message, "string");
  assert.equal(typeof body.error?.type, "string");
  return body.error;
}

/** Exact cost rule: the total rounded up to the next whole micro-EUR. */
export function ceilDiv(numerator: bigint, denominator: bigint): number {
  return Number((numerator + denominator - 1n) / denominator);
}
