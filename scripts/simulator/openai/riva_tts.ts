/**
 * NVIDIA Riva text-to-speech over HTTP as OVHcloud AI Endpoints serves it
 * (`POST {endpoint}/api/v1/tts/text_to_audio`, e.g. nvr-tts-de-de): a JSON body
 * `{encoding, language_code, sample_rate_hz, text, voice_name}`; the answer is a RIFF/WAVE file,
 * 16-bit LINEAR_PCM mono at the requested rate. Verified like the real service: encoding 1
 * (LINEAR_PCM) only, a known language, a voice of that language, non-empty text. Failures are
 * answered 400 with a JSON `{message}` (the real body shape is not documented).
 */
import { z } from "zod";
import { pcm16Tone, wavFile } from "./audio_pcm.ts";
import type { RequestContext } from "./context.ts";

/** The voices each Riva endpoint offers (OVHcloud's nvr-tts-* models, one voice for German). */
export const RIVA_VOICES: Readonly<Record<string, readonly string[]>> = {
  "de-DE": ["German-DE-Male-1"],
  "en-US": ["English-US.Female-1", "English-US.Male-1"],
  "es-ES": ["Spanish-ES-Female-1", "Spanish-ES-Male-1"],
  "it-IT": ["Italian-IT-Female-1", "Italian-IT-Male-1"],
};

/** Seconds of audio per character of text. */
export const RIVA_SECONDS_PER_CHARACTER = 0.06;

const RivaRequest = z.object({
  encoding: z.literal(1),
  language_code: z.string(),
  sample_rate_hz: z.number().int().min(8000).max(48000),
  text: z.string().min(1),
  voice_name: z.string(),
});

function rivaError(message: string, requestId: string): Response {
  return Response.json({ message }, { status: 400, headers: { "x-request-id": requestId } });
}

export function handleRivaTts(body: unknown, ctx: RequestContext): Response {
  const parsed = RivaRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return rivaError(`${issue?.path.join(".") || "body"}: ${issue?.message}`, ctx.requestId);
  }
  const request = parsed.data;
  const voices = RIVA_VOICES[request.language_code];
  if (!voices) {
    return rivaError(`Unsupported language_code ${request.language_code}`, ctx.requestId);
  }
  if (!voices.includes(request.voice_name)) {
    return rivaError(`Voice ${request.voice_name} not found`, ctx.requestId);
  }
  const seconds = Math.max(0.2, [...request.text].length * RIVA_SECONDS_PER_CHARACTER);
  const rate = request.sample_rate_hz;
  const audio = wavFile(pcm16Tone(Math.round(seconds * rate), rate), rate);
  return new Response(audio, {
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(audio.length),
      "x-request-id": ctx.requestId,
    },
  });
}
