/**
 * The Responses stream as a pure state machine: canonical events in, SSE text out
 * (`event: <type>\ndata: <json>\n\n`, one JSON.stringify per event, `sequence_number` from 0).
 *
 * Item rules: a reasoning or message item stays open until another kind of output starts;
 * function_call items stay open until the end (their arguments are only complete then).
 * Every `added` gets its `done` — on completion and on failure alike.
 */
import type { ChatResult, ChatStreamEvent, ReasoningDetail } from "../../canonical/chat.ts";
import {
  failureError,
  functionCallItem,
  itemStatusFor,
  messageItem,
  reasoningItem,
  terminalFields,
} from "./output_items.ts";
import { mergeReasoningDetail, viewReasoning } from "./reasoning_details.ts";
import {
  encodeUsage,
  itemId,
  type ItemStatus,
  type OutputItem,
  type ResponseContext,
  type ResponseObject,
  responseShell,
} from "./response_object.ts";
import { StreamAnswer } from "./stream_answer.ts";
import type { ResponsesStreamEvent } from "./stream_events.ts";

interface OpenReasoning {
  index: number;
  id: string;
  text: string;
  partOpen: boolean;
  details: ReasoningDetail[];
}

interface OpenMessage {
  index: number;
  id: string;
  text: string;
}

interface CallItem {
  index: number;
  id: string;
  open: boolean;
}

export class ResponsesEventEncoder {
  readonly #ctx: ResponseContext;
  readonly #answer: StreamAnswer;
  #seq = 0;
  #out = "";
  /** Output items by output index, as last sent (final once their `done` went out). */
  readonly #items: OutputItem[] = [];
  #reasoning: OpenReasoning | undefined;
  #message: OpenMessage | undefined;
  #reasoningItems = 0;
  /** By canonical tool-call index. */
  readonly #calls = new Map<number, CallItem>();
  #ended = false;

  constructor(ctx: ResponseContext) {
    this.#ctx = ctx;
    this.#answer = new StreamAnswer(ctx.id);
  }

  /** `response.created` and `response.in_progress`. */
  start(): string {
    const response = responseShell(this.#ctx, "in_progress", []);
    this.#emit({ type: "response.created", sequence_number: this.#seq++, response });
    this.#emit({ type: "response.in_progress", sequence_number: this.#seq++, response });
    return this.#take();
  }

  /** The SSE text for one canonical event (may be empty). */
  push(event: ChatStreamEvent): string {
    if (this.#ended) return "";
    this.#answer.add(event);
    switch (event.type) {
      case "text-delta":
        this.#textDelta(event.text);
        break;
      case "reasoning-delta":
        if (!this.#ctx.excludeReasoning) this.#reasoningDelta(event.text);
        break;
      case "reasoning-detail":
        if (!this.#ctx.excludeReasoning || event.detail.type === "reasoning.encrypted") {
          mergeReasoningDetail(this.#openReasoning().details, event.detail);
        }
        break;
      case "tool-call-delta":
        this.#toolCallDelta(event);
        break;
      case "finish":
      case "usage":
        break;
    }
    return this.#take();
  }

  /** Closes what is open, then `response.completed` (`response.failed` on an error finish). */
  complete(): string {
    if (this.#ended) return "";
    const reason = this.#answer.finish ?? "stop";
    if (reason === "error") return this.fail(undefined);
    this.#ended = true;
    this.#closeAll(itemStatusFor(reason));
    const response = this.#response();
    Object.assign(response, terminalFields(reason));
    this.#emit({ type: "response.completed", sequence_number: this.#seq++, response });
    return this.#take();
  }

  /** Closes what is open (status `incomplete`), then `response.failed`. */
  fail(error: unknown): string {
    if (this.#ended) return "";
    this.#ended = true;
    this.#answer.finish = "error";
    this.#closeAll("incomplete");
    const response = this.#response();
    response.status = "failed";
    response.error = failureError(error);
    this.#emit({ type: "response.failed", sequence_number: this.#seq++, response });
    return this.#take();
  }

  /** The answer so far (complete after `complete()`/`fail()`). */
  result(): ChatResult {
    return this.#answer.result();
  }

  #textDelta(text: string): void {
    if (this.#message === undefined) {
      this.#closeReasoning("completed");
      const index = this.#items.length;
      const message = { index, id: itemId(this.#ctx.id, "msg", index), text: "" };
      this.#message = message;
      this.#added({
        type: "message",
        id: message.id,
        role: "assistant",
        status: "in_progress",
        content: [],
      });
      this.#emit({
        type: "response.content_part.added",
        sequence_number: this.#seq++,
        item_id: message.id,
        output_index: index,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
    }
    const message = this.#message;
    message.text += text;
    this.#emit({
      type: "response.output_text.delta",
      sequence_number: this.#seq++,
      item_id: message.id,
      output_index: message.index,
      content_index: 0,
      delta: text,
      logprobs: [],
    });
  }

  #reasoningDelta(text: string): void {
    const reasoning = this.#openReasoning();
    if (!reasoning.partOpen) {
      reasoning.partOpen = true;
      this.#emit({
        type: "response.content_part.added",
        sequence_number: this.#seq++,
        item_id: reasoning.id,
        output_index: reasoning.index,
        content_index: 0,
        part: { type: "reasoning_text", text: "" },
      });
    }
    reasoning.text += text;
    this.#emit({
      type: "response.reasoning_text.delta",
      sequence_number: this.#seq++,
      item_id: reasoning.id,
      output_index: reasoning.index,
      content_index: 0,
      delta: text,
    });
  }

  #openReasoning(): OpenReasoning {
    if (this.#reasoning !== undefined) return this.#reasoning;
    this.#closeMessage("completed");
    const index = this.#items.length;
    const id = itemId(this.#ctx.id, "rs", index);
    this.#reasoning = { index, id, text: "", partOpen: false, details: [] };
    this.#reasoningItems++;
    this.#added({
      type: "reasoning",
      id,
      summary: [],
      reasoning_details: [],
      status: "in_progress",
    });
    return this.#reasoning;
  }

  #toolCallDelta(event: Extract<ChatStreamEvent, { type: "tool-call-delta" }>): void {
    let call = this.#calls.get(event.index);
    if (call === undefined) {
      this.#closeReasoning("completed");
      this.#closeMessage("completed");
      if (this.#ctx.replayReasoning === true && this.#reasoningItems === 0) {
        this.#openReasoning();
        this.#closeReasoning("completed");
      }
      const index = this.#items.length;
      call = { index, id: itemId(this.#ctx.id, "fc", index), open: true };
      this.#calls.set(event.index, call);
      const { callId, name } = this.#answer.calls.get(event.index)!;
      this.#added(functionCallItem(call.id, { callId, name, arguments: "" }, "in_progress"));
    }
    if (event.arguments === "") return;
    this.#emit({
      type: "response.function_call_arguments.delta",
      sequence_number: this.#seq++,
      item_id: call.id,
      output_index: call.index,
      delta: event.arguments,
    });
  }

  #closeAll(status: ItemStatus): void {
    this.#closeReasoning(status);
    this.#closeMessage(status);
    for (const [key, call] of this.#calls) {
      if (!call.open) continue;
      call.open = false;
      const answer = this.#answer.calls.get(key)!;
      this.#emit({
        type: "response.function_call_arguments.done",
        sequence_number: this.#seq++,
        item_id: call.id,
        output_index: call.index,
        arguments: answer.arguments,
        name: answer.name,
      });
      this.#done(call.index, functionCallItem(call.id, answer, status));
    }
  }

  #closeReasoning(status: ItemStatus): void {
    const r = this.#reasoning;
    if (r === undefined) return;
    this.#reasoning = undefined;
    if (r.partOpen) {
      const common = { item_id: r.id, output_index: r.index, content_index: 0 };
      this.#emit({
        type: "response.reasoning_text.done",
        sequence_number: this.#seq++,
        ...common,
        text: r.text,
      });
      this.#emit({
        type: "response.content_part.done",
        sequence_number: this.#seq++,
        ...common,
        part: { type: "reasoning_text", text: r.text },
      });
    }
    const view = viewReasoning(r.text, r.details, this.#ctx.excludeReasoning);
    view.text = r.partOpen ? r.text : undefined;
    this.#done(r.index, reasoningItem(r.id, view, status));
  }

  #closeMessage(status: ItemStatus): void {
    const m = this.#message;
    if (m === undefined) return;
    this.#message = undefined;
    const common = { item_id: m.id, output_index: m.index, content_index: 0 };
    this.#emit({
      type: "response.output_text.done",
      sequence_number: this.#seq++,
      ...common,
      text: m.text,
      logprobs: [],
    });
    this.#emit({
      type: "response.content_part.done",
      sequence_number: this.#seq++,
      ...common,
      part: { type: "output_text", text: m.text, annotations: [] },
    });
    this.#done(m.index, messageItem(m.id, m.text, status));
  }

  #added(item: OutputItem): void {
    const index = this.#items.length;
    this.#items.push(item);
    this.#emit({
      type: "response.output_item.added",
      sequence_number: this.#seq++,
      output_index: index,
      item,
    });
  }

  #done(index: number, item: OutputItem): void {
    this.#items[index] = item;
    this.#emit({
      type: "response.output_item.done",
      sequence_number: this.#seq++,
      output_index: index,
      item,
    });
  }

  #response(): ResponseObject {
    const response = responseShell(this.#ctx, "completed", this.#items.slice());
    const usage = encodeUsage(this.#answer.usage);
    if (usage !== undefined) response.usage = usage;
    return response;
  }

  #emit(event: ResponsesStreamEvent): void {
    this.#out += `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  }

  #take(): string {
    const out = this.#out;
    this.#out = "";
    return out;
  }
}
