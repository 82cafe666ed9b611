/**
 * The SSE rendering of an answer (`chat.completion.chunk` events and `data: [DONE]`) and the
 * stream failure modes: slow chunks, `drop-after-<n>`, `silent` / `silent-after-<n>`.
 */

import type { Behaviour } from "./behaviour.ts";
import { type ChatAnswer, REASONING_FORMAT } from "./chat_answer.ts";
import { type CompletionIdentity, usageObject } from "./chat_completion.ts";
import type { TextPlan } from "./text_plan.ts";
import { sleep, waitForAbort } from "./timing.ts";

const DONE = "data: [DONE]\n\n";
const ROLE_TEXT = '{"role":"assistant","content":"","refusal":null}';
const ROLE_TOOLS = '{"role":"assistant","content":null,"refusal":null}';
const encoder = new TextEncoder();

/** Content deltas per plan, computed once for the cached plans. */
const contentDeltas = new WeakMap<TextPlan, readonly string[]>();

/** Every SSE event of the stream, `[DONE]` last. */
/**
 * `usage`: `chunk` — OpenAI's extra chunk with no choices before `[DONE]` (asked for with
 * `stream_options.include_usage`); `final` — on the finish chunk itself, unasked (Mistral);
 * `none`.
 */
export function streamEvents(
  identity: CompletionIdentity,
  answer: ChatAnswer,
  usage: "chunk" | "final" | "none",
): string[] {
  const includeUsage = usage === "chunk";
  const head =
    `data: {"id":"${identity.id}","object":"chat.completion.chunk","created":${identity.created},"model":${
      JSON.stringify(identity.model)
    },"service_tier":"default","choices":[`;
  const tail = includeUsage ? '],"usage":null}\n\n' : "]}\n\n";
  const event = (delta: string, finish = "null") =>
    `${head}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}${tail}`;

  const events = [event(answer.content === undefined ? ROLE_TOOLS : ROLE_TEXT)];
  const reasoning = answer.reasoning;
  if (reasoning !== undefined && reasoning.returned) {
    for (const piece of reasoning.pieces) {
      const detail = { type: "reasoning.text", text: piece, format: REASONING_FORMAT, index: 0 };
      events.push(event(JSON.stringify({ reasoning: piece, reasoning_details: [detail] })));
    }
    const signed = {
      type: "reasoning.text",
      text: "",
      signature: reasoning.signature,
      format: REASONING_FORMAT,
      index: 0,
    };
    events.push(event(JSON.stringify({ reasoning_details: [signed] })));
  }
  if (answer.content !== undefined) {
    for (const delta of deltasOf(answer.content)) events.push(event(delta));
  }
  for (const [index, call] of answer.toolCalls.entries()) {
    const first = {
      index,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: "" },
    };
    events.push(event(JSON.stringify({ tool_calls: [first] })));
    for (const fragment of call.fragments) {
      events.push(
        event(JSON.stringify({ tool_calls: [{ index, function: { arguments: fragment } }] })),
      );
    }
  }
  if (usage === "final") {
    events.push(
      `${head}{"index":0,"delta":{},"finish_reason":"${answer.finishReason}"}],"usage":${
        JSON.stringify(usageObject(answer.usage))
      }}\n\n`,
    );
  } else {
    events.push(event("{}", `"${answer.finishReason}"`));
  }
  if (includeUsage) {
    events.push(`${head}],"usage":${JSON.stringify(usageObject(answer.usage))}}\n\n`);
  }
  events.push(DONE);
  return events;
}

/**
 * Streams the events. Without delays or failure modes the whole body is one string (cheap for
 * the benchmark); otherwise a pull stream paces the events and stops as the behaviour says.
 * A drop declares the full Content-Length and ends early, so the client sees a cut connection.
 */
export function streamResponse(
  events: readonly string[],
  behaviour: Behaviour,
  signal: () => AbortSignal,
  requestId: string,
): Response {
  const headers: Record<string, string> = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-request-id": requestId,
  };
  const { slowMs, dropAfter, silentAfter } = behaviour;
  if (slowMs === 0 && dropAfter === undefined && silentAfter === undefined) {
    return new Response(events.join(""), { headers });
  }
  const chunkCount = events.length - 1; // `[DONE]` is not a chunk
  const cutAt = dropAfter ?? silentAfter;
  const stopAt = cutAt === undefined ? Infinity : Math.min(cutAt, chunkCount);
  const encoded = events.map((e) => encoder.encode(e));
  if (dropAfter !== undefined) {
    headers["content-length"] = String(encoded.reduce((sum, b) => sum + b.length, 0));
  }
  let next = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next >= stopAt) {
        if (dropAfter === undefined) await waitForAbort(signal());
        return close(controller);
      }
      if (next > 0 && slowMs > 0 && !(await sleep(slowMs, signal()))) return close(controller);
      if (cancelled) return;
      const bytes = encoded[next++];
      if (bytes !== undefined) controller.enqueue(bytes);
      if (next >= encoded.length) close(controller);
    },
    cancel() {
      cancelled = true;
    },
  });
  function close(controller: ReadableStreamDefaultController<Uint8Array>): void {
    if (cancelled) return;
    cancelled = true;
    controller.close();
  }
  return new Response(body, { headers });
}

function deltasOf(plan: TextPlan): readonly string[] {
  const cached = contentDeltas.get(plan);
  if (cached !== undefined) return cached;
  const deltas = plan.pieces.map((piece) => JSON.stringify({ content: piece }));
  contentDeltas.set(plan, deltas);
  return deltas;
}
