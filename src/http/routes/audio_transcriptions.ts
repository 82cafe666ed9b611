/**
 * `POST /v1/audio/transcriptions`: a transcription slot first (at most N per instance), then
 * the multipart upload read as a stream under its limits, the audio measured by Sovra, the
 * file forwarded under a generated name, billed per started second.
 */
import type { Context } from "hono";
import type { AppDeps } from "../../deps.ts";
import { type AppEnv, callerOf } from "../context.ts";
import { servedHeaders } from "../served_headers.ts";
import { respond } from "../answer.ts";
import { parseMultipartForm } from "../../api_formats/audio/multipart.ts";
import { noteRequested } from "../refused_request.ts";
import {
  toTranscriptionRequest,
  validateTranscriptionForm,
} from "../../api_formats/audio/transcription_request.ts";
import { billableSeconds, measureAudioSeconds } from "../../api_formats/audio/audio_duration.ts";
import { createTranscriptionSlots } from "../../api_formats/audio/transcription_slots.ts";
import { callNonChat } from "../../pipeline/non_chat_call.ts";

export function transcriptionsHandler(deps: AppDeps) {
  // One set of slots per instance: at most N uploads of the process are read at once, whichever
  // isolate serves them.
  const slots = createTranscriptionSlots({
    max: deps.config.transcriptionSlots,
    waitMs: deps.config.transcriptionWaitMs,
    shared: deps.limits.transcriptions,
  });
  deps.telemetry.observeSlots(slots);
  return async (c: Context<AppEnv>) => {
    const state = c.get("state");
    const request = c.req.raw;
    const release = await slots.acquire(request.signal).catch(async (error) => {
      await request.body?.cancel().catch(() => {});
      throw error;
    });
    try {
      const upload = await parseMultipartForm(request.body, request.headers.get("content-type"), {
        contentLength: request.headers.get("content-length"),
        signal: request.signal,
        limits: { deadlineMs: deps.config.uploadDeadlineMs },
      });
      noteRequested(state, { model: upload.fields.get("model"), user: upload.fields.get("user") });
      const form = validateTranscriptionForm(upload);
      const model = deps.catalog.current.requireModel(form.model, "transcription");
      const measured = await measureAudioSeconds(form.file.bytes, form.file.contentType);
      const seconds = billableSeconds(measured.seconds);
      const ctx = {
        deps,
        model,
        caller: callerOf(state),
        endpoint: "transcriptions" as const,
        clientSignal: request.signal,
        user: form.user,
        held: { audioSeconds: seconds },
      };
      const upstream = toTranscriptionRequest(form, measured);
      const served = await callNonChat(
        ctx,
        upstream,
        (adapter, call) => adapter.transcription!(upstream, call),
        () => ({ audioSeconds: seconds }),
      );
      return respond(c, served.value.body, {
        "content-type": served.value.contentType,
        ...servedHeaders(state.requestId, served.route, served.dropped),
      });
    } finally {
      release();
    }
  };
}
