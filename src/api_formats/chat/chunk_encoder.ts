/**
 * Canonical events → chat-completion SSE (`data: <chunk>` … `data: [DONE]`). A batch of events
 * (one upstream read) becomes one write. Reasoning is dropped here when the client asked
 * `exclude`. A forwarded upstream chunk (stream pass-through) goes out as it came behind this
 * stream's own head (`id`, `object`, `created`, `model`).
 */
import type { PassthroughItem } from "../../canonical/forwarded_chunk.ts";
import { isUsageComplete, mergeUsage, type Usage } from "../../canonical/usage.ts";
import { type ChatEncodeContext, encodeUsage } from "./encode_response.ts";

const encoder = new TextEncoder();
const DONE = "data: [DONE]\n\n";

export class ChatChunkEncoder {
  /** `{"id":…,"object":"chat.completion.chunk","created":…,"model":…` (no closing brace). */
  readonly #head: string;
  /** `data: ` and the head, made once: a forwarded chunk's event is this, its rest and `\n\n`. */
  readonly #dataHead: string;
  readonly #prefix: string;
  /** Choices whose first chunk (with `role`) went out. */
  #started = new Set<number>();
  #usage: Usage | undefined;

  constructor(private readonly ctx: ChatEncodeContext) {
    this.#head = `{"id":${
      JSON.stringify(ctx.id)
    },"object":"chat.completion.chunk","created":${ctx.created},"model":${
      JSON.stringify(ctx.model)
    }`;
    this.#dataHead = `data: ${this.#head}`;
    this.#prefix = `${this.#head},"choices":[{"index":`;
  }

  #chunk(
    delta: Record<string, unknown>,
    choice = 0,
    finishReason: string | null = null,
  ): string {
    if (!this.#started.has(choice)) {
      delta = { role: "assistant", ...delta };
      this.#started.add(choice);
    }
    return `data: ${this.#prefix}${choice},"delta":${JSON.stringify(delta)},"finish_reason":${
      finishReason === null ? "null" : JSON.stringify(finishReason)
    },"logprobs":null}]}\n\n`;
  }

  /**
   * The first chunk, announcing the assistant's role with empty content (as OpenAI's first
   * chunk does), when the upstream started before its first token; undefined once a chunk
   * went out.
   */
  start(): Uint8Array | undefined {
    return this.#started.size > 0 ? undefined : encoder.encode(this.#chunk({ content: "" }));
  }

  /** The bytes for a batch of events (one upstream read), or undefined when there are none. */
  encodeBatch(events: readonly PassthroughItem[]): Uint8Array | undefined {
    let text = "";
    for (const event of events) text += this.encode(event) ?? "";
    return text === "" ? undefined : encoder.encode(text);
  }

  /** The SSE text for one event, or undefined when the event produces none. */
  encode(event: PassthroughItem): string | undefined {
    switch (event.type) {
      case "forwarded": {
        // Forwarded chunks are choice 0's (its only choice) and carry no role: the role chunk
        // goes first when no chunk did yet.
        const role = this.#started.has(0) ? "" : this.#chunk({ content: "" });
        return `${role}${this.#dataHead}${event.rest}\n\n`;
      }
      case "text-delta":
        return this.#chunk({ content: event.text }, event.choice);
      case "reasoning-delta":
        return this.ctx.excludeReasoning
          ? undefined
          : this.#chunk({ reasoning: event.text }, event.choice);
      case "reasoning-detail":
        return this.ctx.excludeReasoning
          ? undefined
          : this.#chunk({ reasoning_details: [event.detail] }, event.choice);
      case "tool-call-delta": {
        const call: Record<string, unknown> = { index: event.index };
        if (event.id !== undefined) call.id = event.id;
        if (event.id !== undefined || event.name !== undefined) call.type = "function";
        const fn: Record<string, unknown> = { arguments: event.arguments };
        if (event.name !== undefined) fn.name = event.name;
        call.function = fn;
        return this.#chunk({ tool_calls: [call] }, event.choice);
      }
      case "finish":
        return this.#chunk({}, event.choice, event.reason);
      case "usage":
        this.#usage = mergeUsage(this.#usage, event.usage);
        return undefined;
      default:
        event satisfies never;
        return undefined;
    }
  }

  /** The closing bytes: the usage chunk (where reported) then `[DONE]`. */
  end(): Uint8Array {
    let text = this.#started.size > 0 ? "" : this.#chunk({ content: "" });
    if (isUsageComplete(this.#usage)) {
      text += `data: {"id":${JSON.stringify(this.ctx.id)},"object":"chat.completion.chunk",` +
        `"created":${this.ctx.created},"model":${JSON.stringify(this.ctx.model)},"choices":[],` +
        `"usage":${JSON.stringify(encodeUsage(this.#usage))}}\n\n`;
    }
    return encoder.encode(text + DONE);
  }
}
