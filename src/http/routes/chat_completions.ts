/** `POST /v1/chat/completions`: JSON answer or an SSE stream. */
import type { Context } from "hono";
import type { AppDeps } from "../../deps.ts";
import { type AppEnv, callerOf } from "../context.ts";
import { readJsonBody } from "../body.ts";
import { parseBody } from "../validation.ts";
import { ChatCompletionRequestSchema } from "../../dialects/chat/request_schema.ts";
import { decodeChatRequest } from "../../dialects/chat/decode_request.ts";
import { encodeChatCompletion } from "../../dialects/chat/encode_response.ts";
import { ChatChunkEncoder } from "../../dialects/chat/encode_stream.ts";
import { type ChatCallContext, completeChat, openChatStream } from "../../pipeline/chat_call.ts";
import { answerModel, routedHeaders, servedHeaders } from "../served_headers.ts";
import { prefetchRouterPins, resolveChatTarget } from "../chat_target.ts";
import { loggableReason } from "../../providers/upstream_failure.ts";
import type { ChatStreamEvent } from "../../canonical/chat.ts";

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
      return new Response(JSON.stringify(answer), {
        headers: {
          "content-type": "application/json",
          ...servedHeaders(state.requestId, served.route, served.dropped),
          ...routedHeaders(served),
        },
      });
    }

    const open = await openChatStream(ctx, request);
    const encoder = new ChatChunkEncoder({ ...encodeCtx, model: answerModel(open.served) });
    let clientLeft = false;
    let first = true;
    const body$ = new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          let next: ReadableStreamReadResult<ChatStreamEvent[]>;
          try {
            next = await open.read();
          } catch (error) {
            if (clientLeft || c.req.raw.signal.aborted) {
              // The client left: its disconnect aborted the upstream read. Billed as cancelled.
              open.finish("cancelled");
              controller.close();
              return;
            }
            // After the first byte a failure is a dropped connection: no error body. Deno prints
            // the reason a body stream errors with, verbatim, so it is our JSON log line.
            open.finish("failed");
            controller.error(JSON.stringify({
              time: new Date().toISOString(),
              level: "warn",
              msg: "stream dropped after an upstream failure",
              request_id: state.requestId,
              provider: open.served.route.providerId,
              reason: loggableReason(error),
            }));
            return;
          }
          if (next.done) {
            controller.enqueue(encoder.end());
            controller.close();
            open.finish("completed");
            return;
          }
          // One upstream read → one write to the client. The upstream started without a
          // token yet (an empty first batch): the role chunk goes out now, as the first byte.
          const bytes = encoder.encodeBatch(next.value) ??
            (first ? encoder.start() : undefined);
          first = false;
          if (bytes) {
            controller.enqueue(bytes);
            return;
          }
        }
      },
      cancel(reason) {
        clientLeft = true;
        open.cancel(reason);
        open.finish("cancelled");
      },
    }, { highWaterMark: 0 });
    return new Response(body$, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        ...servedHeaders(state.requestId, open.served.route, open.served.dropped),
        ...routedHeaders(open.served),
      },
    });
  };
}
