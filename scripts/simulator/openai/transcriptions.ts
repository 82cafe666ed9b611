/**
 * `POST /v1/audio/transcriptions` (multipart/form-data). The transcript is fixed text; usage is
 * not reported (Whisper-style servers report none or seconds).
 */

import { behaviourOf } from "./behaviour.ts";
import type { RequestContext } from "./context.ts";
import { interruptedResponse, invalidRequest, jsonResponse } from "./responses.ts";
import { sleep } from "./timing.ts";

export const TRANSCRIPT_TEXT = "This is the simulated transcript of the uploaded audio.";
const FORMATS = ["json", "text", "srt", "vtt", "verbose_json"] as const;
type TranscriptFormat = typeof FORMATS[number];

export async function handleTranscription(form: FormData, ctx: RequestContext): Promise<Response> {
  const model = form.get("model");
  if (typeof model !== "string" || model === "") {
    return invalidRequest("Missing required parameter: 'model'.", ctx.requestId, "model");
  }
  const file = form.get("file");
  if (!(file instanceof File)) {
    return invalidRequest("Missing required parameter: 'file'.", ctx.requestId, "file");
  }
  const requested = form.get("response_format") ?? "json";
  const format = FORMATS.find((f) => f === requested);
  if (format === undefined) {
    return invalidRequest(
      `Invalid value for 'response_format': '${String(requested)}'.`,
      ctx.requestId,
      "response_format",
    );
  }
  const behaviour = behaviourOf(model);
  if (behaviour.slowMs > 0) await sleep(behaviour.slowMs, ctx.signal());
  const interrupted = await interruptedResponse(behaviour, ctx.signal, ctx.requestId);
  if (interrupted !== undefined) return interrupted;
  return render(format, ctx.requestId);
}

function render(format: TranscriptFormat, requestId: string): Response {
  const duration = 3.2;
  switch (format) {
    case "json":
      return jsonResponse({ text: TRANSCRIPT_TEXT }, requestId);
    case "verbose_json":
      return jsonResponse({
        task: "transcribe",
        language: "english",
        duration,
        text: TRANSCRIPT_TEXT,
        segments: [{
          id: 0,
          seek: 0,
          start: 0,
          end: duration,
          text: ` ${TRANSCRIPT_TEXT}`,
          tokens: [],
          temperature: 0,
          avg_logprob: -0.2,
          compression_ratio: 1.1,
          no_speech_prob: 0.01,
        }],
      }, requestId);
    case "text":
      return text(`${TRANSCRIPT_TEXT}\n`, requestId);
    case "srt":
      return text(`1\n00:00:00,000 --> 00:00:03,200\n${TRANSCRIPT_TEXT}\n\n`, requestId);
    case "vtt":
      return text(`WEBVTT\n\n00:00:00.000 --> 00:00:03.200\n${TRANSCRIPT_TEXT}\n\n`, requestId);
  }
}

function text(body: string, requestId: string): Response {
  return new Response(body, {
    headers: { "content-type": "text/plain; charset=utf-8", "x-request-id": requestId },
  });
}
