/**
 * The `riva-tts` dialect: NVIDIA Riva text-to-speech over HTTP, as OVHcloud AI Endpoints serves
 * its `nvr-tts-*` models (`POST {base_url}/tts/text_to_audio`, base_url ending in `/api/v1`).
 * Request `{encoding: 1 (LINEAR_PCM), language_code, sample_rate_hz: 16000, text, voice_name}`
 * with a Bearer key; the answer is a WAV file. The language comes from the upstream model's name
 * (`nvr-tts-de-de` → `de-DE`). The answer is checked to be what the spec promises for this model
 * (RIFF/WAVE, PCM, mono, 16 kHz) before any byte reaches the client. Speech only: chat calls
 * fail as an invalid request. Voice and the 1,000-character limit are the catalog's and are
 * checked before any upstream call (`api_formats/audio/speech_request.ts`).
 */
import type { ProviderAdapter, SpeechRequest, SpeechResult, UpstreamCall } from "../adapter.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import {
  authHeaders,
  endpointUrl,
  type OpenAiDeps,
  sendUpstream,
  unreadableAnswer,
} from "../openai/http.ts";

/** Riva's `AudioEncoding.LINEAR_PCM`. */
const LINEAR_PCM = 1;
export const RIVA_SAMPLE_RATE = 16_000;

export interface RivaTtsAdapterDeps {
  secret: (name: string) => string | undefined;
  fetch?: typeof fetch;
}

/** `nvr-tts-de-de` → `de-DE`; undefined when the name ends in no language pair. */
export function rivaLanguageCode(upstreamModel: string): string | undefined {
  const match = /([a-z]{2})-([a-z]{2})$/i.exec(upstreamModel);
  return match ? `${match[1]!.toLowerCase()}-${match[2]!.toUpperCase()}` : undefined;
}

/** The request body Riva's `text_to_audio` takes. */
export function rivaRequestBody(request: SpeechRequest, languageCode: string) {
  return {
    encoding: LINEAR_PCM,
    language_code: languageCode,
    sample_rate_hz: RIVA_SAMPLE_RATE,
    text: request.input,
    voice_name: request.voice,
  };
}

/** Reads a canonical WAV header: PCM format, channels and sample rate; undefined if not WAV. */
export function wavFormat(
  bytes: Uint8Array,
): { format: number; channels: number; sampleRate: number } | undefined {
  if (bytes.length < 36) return undefined;
  const text = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (text(0) !== "RIFF" || text(8) !== "WAVE" || text(12) !== "fmt ") return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    format: view.getUint16(20, true),
    channels: view.getUint16(22, true),
    sampleRate: view.getUint32(24, true),
  };
}

async function rivaSpeech(
  request: SpeechRequest,
  call: UpstreamCall,
  http: OpenAiDeps,
): Promise<SpeechResult> {
  const language = rivaLanguageCode(call.route.route.upstream_model);
  if (language === undefined) {
    throw new UpstreamFailure(
      "unavailable",
      `The riva-tts route '${call.route.route.upstream_model}' names no language (e.g. nvr-tts-de-de).`,
    );
  }
  const response = await sendUpstream(call, http, endpointUrl(call, "/tts/text_to_audio"), {
    headers: {
      ...authHeaders(call, http),
      "content-type": "application/json",
      accept: "application/octet-stream",
    },
    body: JSON.stringify(rivaRequestBody(request, language)),
  });
  let audio: Uint8Array;
  try {
    audio = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    if (call.signal.aborted) throw error;
    throw unreadableAnswer(error);
  }
  const format = wavFormat(audio);
  if (
    !format || format.format !== 1 || format.channels !== 1 ||
    format.sampleRate !== RIVA_SAMPLE_RATE
  ) {
    throw unreadableAnswer();
  }
  return {
    audio: new ReadableStream({
      start(controller) {
        controller.enqueue(audio);
        controller.close();
      },
    }),
    contentType: "audio/wav",
  };
}

export function createRivaTtsAdapter(deps: RivaTtsAdapterDeps): ProviderAdapter {
  const http: OpenAiDeps = { env: deps.secret, ...(deps.fetch ? { fetch: deps.fetch } : {}) };
  const speechOnly = () =>
    Promise.reject(
      new UpstreamFailure("invalid_request", "The 'riva-tts' dialect serves speech only."),
    );
  return {
    chat: speechOnly,
    chatStream: speechOnly,
    speech: (request, call) => rivaSpeech(request, call, http),
  };
}
