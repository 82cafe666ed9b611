/** `openai`-dialect SSE → canonical events (batched per upstream read by `eventBatches`). */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import { validReasoningDetails } from "../../canonical/reasoning_detail_schema.ts";
import { finishEventFields } from "../../canonical/finish_reason.ts";
import { mapOpenAIFinishReason } from "./map_finish_reason.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import type { StreamDecoder } from "../event_batches.ts";
import { convertUsage } from "./convert_usage.ts";
import { StreamText } from "../../util/stream_text.ts";

type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The canonical events of one parsed chunk. */
export function convertChunk(chunk: Json, out: ChatStreamEvent[]): void {
  if (isObject(chunk.error)) {
    throw new UpstreamFailure("unavailable", "The provider reported an error mid-stream.");
  }
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    const first = out.length;
    convertChoiceDelta(choice, out);
    // Choices other than 0 (a request with `n` > 1) carry their index.
    const index = typeof choice.index === "number" ? choice.index : 0;
    if (index !== 0) {
      for (let i = first; i < out.length; i++) {
        (out[i] as { choice?: number }).choice = index;
      }
    }
  }
  if (isObject(chunk.usage)) {
    const usage = convertUsage(chunk.usage);
    if (usage) out.push({ type: "usage", usage });
  }
}

/** The events of one choice's delta. */
function convertChoiceDelta(choice: Json, out: ChatStreamEvent[]): void {
  const delta = isObject(choice.delta) ? choice.delta : {};
  const reasoning = delta.reasoning ?? delta.reasoning_content;
  if (typeof reasoning === "string" && reasoning !== "") {
    out.push({ type: "reasoning-delta", text: reasoning });
  }
  if (Array.isArray(delta.reasoning_details)) {
    for (const detail of validReasoningDetails(delta.reasoning_details)) {
      out.push({ type: "reasoning-detail", detail });
    }
  }
  const content = delta.content;
  if (typeof content === "string") {
    if (content !== "") out.push({ type: "text-delta", text: content });
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (!isObject(part)) continue;
      if (part.type === "text" && typeof part.text === "string" && part.text !== "") {
        out.push({ type: "text-delta", text: part.text });
      } else if (part.type === "thinking" && Array.isArray(part.thinking)) {
        for (const t of part.thinking) {
          if (isObject(t) && typeof t.text === "string" && t.text !== "") {
            out.push({ type: "reasoning-delta", text: t.text });
          }
        }
      }
    }
  }
  if (Array.isArray(delta.tool_calls)) {
    for (const call of delta.tool_calls) {
      if (!isObject(call)) continue;
      const fn = isObject(call.function) ? call.function : {};
      const event: ChatStreamEvent = {
        type: "tool-call-delta",
        index: typeof call.index === "number" ? call.index : 0,
        arguments: typeof fn.arguments === "string" ? fn.arguments : "",
      };
      if (typeof call.id === "string") event.id = call.id;
      if (typeof fn.name === "string") event.name = fn.name;
      out.push(event);
    }
  }
  if (typeof choice.finish_reason === "string") {
    out.push({ type: "finish", ...finishEventFields(mapOpenAIFinishReason(choice.finish_reason)) });
  }
}

/** The `openai` dialect's SSE as a StreamDecoder: data-only events ending with `[DONE]`. */
export function openaiSseDecoder(): StreamDecoder {
  return openaiSseEvents((data, out) => {
    const chunk = parseChunk(data);
    if (isObject(chunk)) convertChunk(chunk, out);
  });
}

/** One event's data → the items it stands for (throws an UpstreamFailure to end the stream). */
export type OpenAIEventHandler<E> = (data: string, out: E[]) => void;

/**
 * The SSE framing of the `openai` dialect around a per-event handler: events after `[DONE]`
 * are ignored, a handler's throw ends the stream after the items decoded before it, and a
 * body that ends without `[DONE]` is incomplete.
 */
export function openaiSseEvents<E>(handle: OpenAIEventHandler<E>): StreamDecoder<E> {
  const text = new StreamText();
  let items: E[] = [];
  let done = false;
  let started = false;
  let failure: unknown;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (done || failure !== undefined) return;
      if (message.data === "[DONE]") {
        done = true;
        return;
      }
      try {
        handle(message.data, items);
        started = true;
      } catch (error) {
        failure = error;
      }
    },
  });
  const take = (): E[] => {
    const out = items;
    items = [];
    return out;
  };
  return {
    push(chunk) {
      if (done) return [];
      parser.feed(text.decode(chunk));
      const out = take();
      if (failure !== undefined) {
        // Items before the failure go out; the failure ends the stream on the next read.
        const error = failure;
        return (function* () {
          yield* out;
          throw error;
        })();
      }
      return out;
    },
    started: () => started,
    end() {
      if (!done) {
        throw new UpstreamFailure("unavailable", "The provider's stream ended without [DONE].");
      }
      return [];
    },
  };
}

/** An event's JSON; a malformed one ends the stream. */
export function parseChunk(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new UpstreamFailure("unavailable", "The provider sent a malformed stream chunk.");
  }
}
