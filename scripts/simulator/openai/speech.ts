/**
 * `POST /v1/audio/speech`: real audio bytes whose duration grows with the input length.
 * 24 kHz mono unless the model name has the token `16k`.
 */

import { z } from "zod";
import { aacFrames, flacFile, mp3Frames } from "./audio_frames.ts";
import { pcm16Tone, wavFile } from "./audio_pcm.ts";
import { behaviourOf } from "./behaviour.ts";
import type { RequestContext } from "./context.ts";
import { oggOpusFile } from "./ogg_opus.ts";
import { interruptedResponse, invalidBody } from "./responses.ts";
import { sleep } from "./timing.ts";

/** Seconds of audio per input character (at speed 1). */
export const SECONDS_PER_CHARACTER = 0.05;
const MIN_SECONDS = 0.2;
const MAX_SECONDS = 60;

export type SpeechFormat = "mp3" | "opus" | "aac" | "flac" | "wav" | "pcm";

export const SPEECH_CONTENT_TYPES: Readonly<Record<SpeechFormat, string>> = {
  mp3: "audio/mpeg",
  opus: "audio/ogg",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

const SpeechRequest = z.looseObject({
  model: z.string().min(1),
  input: z.string().min(1).max(4096),
  voice: z.union([z.string().min(1), z.looseObject({ id: z.string() })]),
  response_format: z.enum(["mp3", "opus", "aac", "flac", "wav", "pcm"]).nullish(),
  speed: z.number().min(0.25).max(4).nullish(),
});

export async function handleSpeech(body: unknown, ctx: RequestContext): Promise<Response> {
  const parsed = SpeechRequest.safeParse(body);
  if (!parsed.success) return invalidBody(parsed.error.issues, ctx.requestId);
  const request = parsed.data;
  const behaviour = behaviourOf(request.model);
  if (behaviour.slowMs > 0) await sleep(behaviour.slowMs, ctx.signal());
  const interrupted = await interruptedResponse(behaviour, ctx.signal, ctx.requestId);
  if (interrupted !== undefined) return interrupted;

  const format = request.response_format ?? "mp3";
  const rate = behaviour.rate16k ? 16000 : 24000;
  const seconds = Math.min(
    MAX_SECONDS,
    Math.max(MIN_SECONDS, (request.input.length * SECONDS_PER_CHARACTER) / (request.speed ?? 1)),
  );
  const samples = Math.round(seconds * rate);
  const audio = encode(format, samples, rate);
  return new Response(audio, {
    headers: {
      "content-type": SPEECH_CONTENT_TYPES[format],
      "content-length": String(audio.length),
      "x-request-id": ctx.requestId,
    },
  });
}

function encode(
  format: SpeechFormat,
  samples: number,
  rate: 24000 | 16000,
): Uint8Array<ArrayBuffer> {
  switch (format) {
    case "wav":
      return wavFile(pcm16Tone(samples, rate), rate);
    case "pcm":
      return pcm16Tone(samples, rate);
    case "mp3":
      return mp3Frames(samples, rate);
    case "aac":
      return aacFrames(samples, rate);
    case "flac":
      return flacFile(samples, rate);
    case "opus":
      return oggOpusFile(samples, rate);
  }
}
