/**
 * `POST /v1/audio/speech`: voice and limits checked against the catalog before any provider
 * call; the primary route only (speech never falls back); the audio streamed through; billed
 * per Unicode code point of `input`.
 */
import type { Context } from "hono";
import type { AppDeps } from "../../deps.ts";
import { type AppEnv, callerOf } from "../context.ts";
import { servedHeaders } from "../served_headers.ts";
import { readJsonBody } from "../body.ts";
import { noteRequested } from "../refused_request.ts";
import { respond } from "../answer.ts";
import {
  parseSpeechRequest,
  validateSpeechRequest,
} from "../../api_formats/audio/speech_request.ts";
import { callNonChat } from "../../pipeline/non_chat_call.ts";
import { requireModelField } from "../validation.ts";

export function speechHandler(deps: AppDeps) {
  return async (c: Context<AppEnv>) => {
    const state = c.get("state");
    const read = await readJsonBody(c.req.raw, { deadlineMs: deps.config.bodyTimeoutMs });
    noteRequested(state, read);
    const raw = requireModelField(read);
    const body = parseSpeechRequest(raw);
    const model = deps.catalog.current.requireModel(body.model, "speech");
    const speech = validateSpeechRequest(body, model);
    const ctx = {
      deps,
      model,
      caller: callerOf(state),
      endpoint: "speech" as const,
      clientSignal: c.req.raw.signal,
      user: body.user,
    };
    const upstream = {
      input: speech.input,
      voice: speech.voice,
      responseFormat: speech.responseFormat,
    };
    const served = await callNonChat(
      ctx,
      upstream,
      (adapter, call) => adapter.speech!(upstream, call),
      () => ({ characters: speech.characters }),
    );
    return respond(c, served.value.audio, {
      "content-type": served.value.contentType,
      ...servedHeaders(state.requestId, served.route),
    });
  };
}
