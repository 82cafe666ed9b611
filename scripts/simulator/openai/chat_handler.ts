/** `POST /v1/chat/completions`: validate, apply the scenario of the model name, answer. */

import { behaviourOf } from "./behaviour.ts";
import { planAnswer, promptWords } from "./chat_answer.ts";
import { chatCompletion, type CompletionIdentity } from "./chat_completion.ts";
import { validateChatRequest } from "./chat_request.ts";
import { streamEvents, streamResponse } from "./chat_stream.ts";
import type { RequestContext } from "./context.ts";
import { failureResponse, interruptedResponse, invalidRequest, jsonResponse } from "./responses.ts";
import { sleep } from "./timing.ts";

/**
 * `chatWaitMs`: the simulator's own wait before every chat answer (OpenAISimulatorOptions);
 * `usageAlways`: streams carry usage on their last chunk unasked, as Mistral's do.
 */
export async function handleChat(
  body: unknown,
  ctx: RequestContext,
  chatWaitMs = 0,
  usageAlways = false,
): Promise<Response> {
  const validated = validateChatRequest(body);
  if (!validated.ok) return invalidRequest(validated.message, ctx.requestId, validated.param);
  const request = validated.request;
  const behaviour = behaviourOf(request.model);
  const stream = request.stream === true;
  const waitMs = Math.max(behaviour.slowMs, behaviour.waitMs, chatWaitMs);
  if (waitMs > 0) await sleep(waitMs, ctx.signal());
  if (behaviour.fail !== undefined) {
    return failureResponse(behaviour.fail.status, behaviour.fail.raw, ctx.requestId);
  }
  if (!stream) {
    const interrupted = await interruptedResponse(behaviour, ctx.signal, ctx.requestId);
    if (interrupted !== undefined) return interrupted;
  }
  let answer = planAnswer(request, behaviour, ctx.seq);
  const key = (request as { prompt_cache_key?: unknown }).prompt_cache_key;
  if (typeof key === "string" && ctx.promptCache) {
    const cached = ctx.promptCache.use(request.model, key, promptWords(request.messages));
    answer = {
      ...answer,
      usage: { ...answer.usage, cached: Math.min(cached, answer.usage.prompt) },
    };
  }
  const identity: CompletionIdentity = {
    id: `chatcmpl-sim${ctx.seq.toString(36)}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
  };
  if (!stream) {
    return jsonResponse(chatCompletion(identity, answer, !behaviour.noUsage), ctx.requestId);
  }
  const usage = behaviour.noUsage
    ? "none"
    : usageAlways
    ? "final"
    : request.stream_options?.include_usage === true
    ? "chunk"
    : "none";
  const events = streamEvents(identity, answer, usage);
  return streamResponse(events, behaviour, ctx.signal, ctx.requestId);
}
