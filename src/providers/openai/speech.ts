/**
 * `POST {base_url}/audio/speech` for the `openai` dialect. The answer is the audio itself,
 * streamed through without buffering. A provider that wraps the audio in JSON
 * (Mistral: `{"audio_data": "<base64>"}`) is unwrapped. The body takes the provider's names
 * from its request schema (Mistral: `voice` is `voice_id`).
 */
import type { SpeechRequest, SpeechResult, UpstreamCall } from "../adapter.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import { isJsonContentType } from "../../util/content_type.ts";
import {
  authHeaders,
  endpointUrl,
  type OpenAiDeps,
  parseJson,
  readBodyText,
  sendUpstream,
  unreadableAnswer,
} from "./http.ts";
import { endpointSchema, shapeBody } from "./conform_request.ts";

const CONTENT_TYPES: Record<string, string> = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  pcm: "audio/pcm",
};

/** The content type the gateway announces for a speech format. */
export function speechContentType(format: string): string {
  return CONTENT_TYPES[format] ?? "application/octet-stream";
}

export async function openaiSpeech(
  request: SpeechRequest,
  call: UpstreamCall,
  deps: OpenAiDeps,
): Promise<SpeechResult> {
  const body = shapeBody({
    model: call.route.route.upstream_model,
    input: request.input,
    voice: request.voice,
    response_format: request.responseFormat,
  }, endpointSchema(call.route, "speech"));
  const response = await sendUpstream(call, deps, endpointUrl(call, "/audio/speech"), {
    headers: {
      ...authHeaders(call, deps),
      "content-type": "application/json",
      accept: "application/octet-stream",
    },
    body: JSON.stringify(body),
  });
  const upstreamType = response.headers.get("content-type");
  const contentType = upstreamType?.toLowerCase().startsWith("audio/")
    ? upstreamType
    : speechContentType(request.responseFormat);

  if (isJsonContentType(upstreamType)) {
    const audio = decodeJsonAudio(parseJson(await readBodyText(response, call.signal)));
    return { audio: streamOf(audio), contentType };
  }
  if (response.body === null) throw unreadableAnswer();
  return { audio: relay(response.body), contentType };
}

function decodeJsonAudio(json: unknown): Uint8Array {
  const data = (json as { audio_data?: unknown } | undefined)?.audio_data;
  if (typeof data !== "string") throw unreadableAnswer();
  try {
    return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  } catch (error) {
    throw unreadableAnswer(error);
  }
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * Passes the upstream body on, pull by pull (never ahead of the client). A body that breaks
 * errors the stream with an `UpstreamFailure`; cancelling it cancels the upstream body.
 */
function relay(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        controller.error(
          new UpstreamFailure("unavailable", "The provider's audio stream broke off.", {
            cause: error,
          }),
        );
        return;
      }
      if (result.done) controller.close();
      else controller.enqueue(result.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
