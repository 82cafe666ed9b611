/**
 * `POST /v1/chat/completions`: JSON answer or an SSE stream (`dialects/chat/stream_body.ts`;
 * the stream pass-through where `dialects/chat/passthrough.ts` allows it).
 */
import type { Context } from "hono";
import type { AppDeps } from "../../deps.ts";
import { type AppEnv, callerOf } from "../context.ts";
import { readJsonBody } from "../body.ts";
import { respond } from "../answer.ts";
import { parseBody } from "../validation.ts";
import { ChatCompletionRequestSchema } from "../../dialects/chat/request_schema.ts";
import { decodeChatRequest } from "../../dialects/chat/decode_request.ts";
import { encodeChatCompletion } from "../../dialects/chat/encode_response.ts";
import { ChatChunkEncoder } from "../../dialects/chat/encode_stream.ts";
import { type ChatCallContext, completeChat, openChatStream } from "../../pipeline/chat_call.ts";
import { answerModel, routedHeaders, servedHeaders } from "../served_headers.ts";
import { prefetchRouterPins, resolveChatTarget } from "../chat_target.ts";
import { chatStreamBody } from "../../dialects/chat/stream_body.ts";
import { wantsPassthrough } from "../../dialects/chat/passthrough.ts";

export function chatCompletionsHandler(deps: AppDeps) {
  return async (c: Context<AppEnv>) => {
    const state = c.get("state");
    const body = parseBody(
      ChatCompletionRequestSchema,
      await readJsonBody(c.req.raw, { deadlineMs: deps.config.bodyTimeoutMs }),
    );
    const { model, requestedModel } = await resolveChatTarget(deps, body.model, state.apiKey.org);
    const request = decodeChatRequest(body);
    await prefetchRouterPins(deps, state.apiKey.org, requestedModel, request);
    const ctx: ChatCallContext = {
      deps,
      model,
      caller: callerOf(state),
      endpoint: "chat",
      clientSignal: c.req.raw.signal,
      ...(requestedModel ? { requestedModel } : {}),
    };
    const encodeCtx = {
      id: `chatcmpl-${state.requestId.slice(4)}`,
      created: Math.floor(state.startedAt / 1000),
      model: model.id,
      excludeReasoning: request.reasoning?.exclude === true,
    };

    if (!request.stream) {
      const { result, served } = await completeChat(ctx, request);
      const answer = encodeChatCompletion(result, { ...encodeCtx, model: answerModel(served) });
      // The route's headers in one object, in the order content type, served, routed (no spreads).
      const headers = servedHeaders(state.requestId, served.route, served.dropped, {
        "content-type": "application/json",
      });
      return respond(c, JSON.stringify(answer), routedHeaders(served, headers));
    }

    const open = await openChatStream(ctx, request, { passthrough: wantsPassthrough(request) });
    const body$ = chatStreamBody(open, {
      encoder: new ChatChunkEncoder({ ...encodeCtx, model: answerModel(open.served) }),
      clientSignal: c.req.raw.signal,
      requestId: state.requestId,
      provider: open.served.route.providerId,
    });
    const headers = servedHeaders(state.requestId, open.served.route, open.served.dropped, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    });
    return respond(c, body$, routedHeaders(open.served, headers));
  };
}
