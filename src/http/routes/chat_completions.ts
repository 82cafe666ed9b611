/**
 * `POST /v1/chat/completions`: JSON answer or an SSE stream (`api_formats/chat/stream_body.ts`;
 * the stream pass-through where `api_formats/chat/passthrough.ts` allows it).
 */
import type { Context } from "hono";
import type { AppDeps } from "../../deps.ts";
import { type AppEnv, callerOf } from "../context.ts";
import { readJsonBodyText } from "../body.ts";
import { noteRequested } from "../refused_request.ts";
import { respond } from "../answer.ts";
import { parseBody } from "../validation.ts";
import { ChatCompletionRequestSchema } from "../../api_formats/chat/request_schema.ts";
import { decodeChatRequest } from "../../api_formats/chat/decode_request.ts";
import { encodeChatCompletion } from "../../api_formats/chat/encode_response.ts";
import { ChatChunkEncoder } from "../../api_formats/chat/chunk_encoder.ts";
import { type ChatCallContext, completeChat, openChatStream } from "../../pipeline/chat_call.ts";
import { adjustedHeader, answerModel, routedHeaders, servedHeaders } from "../served_headers.ts";
import { resolveChatTarget } from "../../pipeline/chat_target.ts";
import { chatStreamBody } from "../../api_formats/chat/stream_body.ts";
import { wantsPassthrough } from "../../api_formats/chat/passthrough.ts";

export function chatCompletionsHandler(deps: AppDeps) {
  return async (c: Context<AppEnv>) => {
    const state = c.get("state");
    const { value: raw, text } = await readJsonBodyText(c.req.raw, {
      deadlineMs: deps.config.bodyTimeoutMs,
    });
    noteRequested(state, raw);
    const body = parseBody(ChatCompletionRequestSchema, raw);
    const target = resolveChatTarget(deps, body.model, state.apiKey.org);
    const { model, requestedModel } = target instanceof Promise ? await target : target;
    const request = decodeChatRequest(body);
    request.clientBody = { text, value: raw };
    const ctx: ChatCallContext = {
      deps,
      model,
      caller: callerOf(state),
      endpoint: "chat",
      clientSignal: c.req.raw.signal,
    };
    if (requestedModel) ctx.requestedModel = requestedModel;
    // The encoder's context, built once the serving model is known (no spread of a draft).
    const id = `chatcmpl-${state.requestId.slice(4)}`;
    const created = Math.floor(state.startedAt / 1000);
    const excludeReasoning = request.reasoning?.exclude === true;

    if (!request.stream) {
      const { result, served } = await completeChat(ctx, request);
      const answer = encodeChatCompletion(result, {
        id,
        created,
        model: answerModel(served),
        excludeReasoning,
      });
      // The route's headers in one object, in the order content type, served, routed (no spreads).
      const headers = servedHeaders(state.requestId, served.route, served.dropped, {
        "content-type": "application/json",
      });
      return respond(
        c,
        JSON.stringify(answer),
        routedHeaders(served, adjustedHeader(served, headers)),
      );
    }

    const open = await openChatStream(ctx, request, { passthrough: wantsPassthrough(request) });
    const body$ = chatStreamBody(open, {
      encoder: new ChatChunkEncoder({
        id,
        created,
        model: answerModel(open.served),
        excludeReasoning,
      }),
      clientSignal: c.req.raw.signal,
      requestId: state.requestId,
      provider: open.served.route.providerId,
    });
    const headers = servedHeaders(state.requestId, open.served.route, open.served.dropped, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    });
    return respond(c, body$, routedHeaders(open.served, adjustedHeader(open.served, headers)));
  };
}
