/**
 * `POST /v1/responses`: the stateless Responses API on every chat model, translated to the
 * canonical request (a rebuilding route: rule 7 refusals apply) and back; streamed as named
 * events with `sequence_number`, failures after the first byte as `response.failed`.
 */
import type { Context } from "hono";
import type { AppDeps } from "../../deps.ts";
import { type AppEnv, callerOf } from "../context.ts";
import { readJsonBody } from "../body.ts";
import { noteRequested } from "../refused_request.ts";
import { respond } from "../answer.ts";
import { parseBody } from "../validation.ts";
import { ResponsesRequestSchema } from "../../api_formats/responses/request_schema.ts";
import {
  decodeResponsesRequest,
  replaysReasoning,
} from "../../api_formats/responses/decode_request.ts";
import { encodeResponse } from "../../api_formats/responses/encode_response.ts";
import { createResponsesEventStream } from "../../api_formats/responses/event_stream.ts";
import { newResponseId } from "../../api_formats/responses/response_object.ts";
import { responseEcho } from "../../api_formats/responses/response_echo.ts";
import { type ChatCallContext, completeChat, openChatStream } from "../../pipeline/chat_call.ts";
import { adjustedHeader, answerModel, routedHeaders, servedHeaders } from "../served_headers.ts";
import { resolveChatTarget } from "../../pipeline/chat_target.ts";
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import { ignoredFields, responsesParamName } from "../../api_formats/responses/ignored_fields.ts";
import { translateTextFormat } from "../../api_formats/responses/text_format.ts";

export function responsesHandler(deps: AppDeps) {
  return async (c: Context<AppEnv>) => {
    const state = c.get("state");
    const raw = await readJsonBody(c.req.raw, { deadlineMs: deps.config.bodyTimeoutMs });
    noteRequested(state, raw);
    const body = parseBody(ResponsesRequestSchema, raw);
    const target = resolveChatTarget(deps, body.model, state.apiKey.org);
    const { model, requestedModel } = target instanceof Promise ? await target : target;
    const request = decodeResponsesRequest(body, model);
    const ctx: ChatCallContext = {
      deps,
      model,
      caller: callerOf(state),
      endpoint: "responses",
      clientSignal: c.req.raw.signal,
      ...(requestedModel ? { requestedModel } : {}),
    };
    const ignored = ignoredFields(
      body,
      translateTextFormat(body.text?.format).kind === "ignored",
    );
    /** Ignored fields, then the plan's drops (rule 1, rule 8's `text.format`) in Responses names. */
    const dropped = (served: { dropped: string[] }): string[] => [
      ...new Set([...ignored, ...served.dropped.map(responsesParamName)]),
    ];
    const encodeCtx = {
      id: newResponseId(),
      createdAt: Math.floor(state.startedAt / 1000),
      model: model.id,
      excludeReasoning: request.reasoning?.exclude === true,
      replayReasoning: replaysReasoning(model, request.reasoning),
      echo: responseEcho(body),
    };

    if (!request.stream) {
      const { result, served } = await completeChat(ctx, request);
      return respond(
        c,
        JSON.stringify(
          encodeResponse(result, {
            ...encodeCtx,
            model: answerModel(served),
            completedAt: Math.floor(Date.now() / 1000),
          }),
        ),
        {
          "content-type": "application/json",
          ...servedHeaders(state.requestId, served.route, dropped(served)),
          ...adjustedHeader(served, {}),
          ...routedHeaders(served),
        },
      );
    }

    const open = await openChatStream(ctx, request);
    const events = new ReadableStream<ChatStreamEvent>({
      async pull(controller) {
        for (;;) {
          const next = await open.read();
          if (next.done) return controller.close();
          // The Responses API has one answer: only choice 0 (it never asks for `n`).
          let enqueued = false;
          for (const event of next.value) {
            if ("choice" in event && event.choice !== undefined && event.choice !== 0) continue;
            controller.enqueue(event);
            enqueued = true;
          }
          if (enqueued) return;
        }
      },
      cancel(reason) {
        open.cancel(reason);
      },
    }, { highWaterMark: 0 });
    const stream = createResponsesEventStream(events, {
      ...encodeCtx,
      model: answerModel(open.served),
      onFinish: (outcome) => open.finish(outcome.status),
    });
    return respond(c, stream.body, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...servedHeaders(state.requestId, open.served.route, dropped(open.served)),
      ...adjustedHeader(open.served, {}),
      ...routedHeaders(open.served),
    });
  };
}
