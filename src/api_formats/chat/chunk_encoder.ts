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
  /** `#dataHead` encoded, for chunks forwarded as bytes. */
  readonly #dataHeadBytes: Uint8Array;
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
    this.#dataHeadBytes = encoder.encode(this.#dataHead);
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

  /**
   * The bytes for a batch of events (one upstream read), or undefined when there are none.
   * Chunks that came as bytes (`ForwardedChunk.bytes`) are copied behind the head's bytes;
   * the text of everything else is encoded once between them.
   */
  encodeBatch(events: readonly PassthroughItem[]): Uint8Array | undefined {
    let text = "";
    let parts: Uint8Array[] | undefined;
    let size = 0;
    for (const event of events) {
      if (event.type !== "forwarded" || event.bytes === undefined) {
        text += this.encode(event) ?? "";
        continue;
      }
      // The role chunk goes first when no chunk did yet (as `encode` does).
      if (!this.#started.has(0)) text += this.#chunk({ content: "" });
      parts ??= [];
      if (text !== "") {
        const encoded = encoder.encode(text);
        parts.push(encoded);
        size += encoded.length;
        text = "";
      }
      parts.push(this.#dataHeadBytes, event.bytes);
      size += this.#dataHeadBytes.length + event.bytes.length;
    }
    if (parts === undefined) return text === "" ? undefined : encoder.encode(text);
    if (text !== "") {
      const encoded = encoder.encode(text);
      parts.push(encoded);
      size += encoded.length;
    }
    const out = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
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
