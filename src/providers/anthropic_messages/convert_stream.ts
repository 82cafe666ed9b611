/**
 * Anthropic SSE events → canonical stream events, one upstream event at a time.
 * Tool calls get their own 0-based index in order of appearance; reasoning details get an
 * `index` in order of thinking blocks. Thinking text goes out both as `reasoning-delta` and
 * as a `reasoning.text` detail fragment (OpenRouter's pattern), its signature as a detail
 * fragment with empty text. `finish` then `usage` come at `message_stop`.
 */
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import { convertAnthropicUsage, mergeAnthropicUsage } from "./convert_usage.ts";
import { anthropicStreamFailure } from "./errors.ts";
import { ANTHROPIC_REASONING_FORMAT } from "./group_turns.ts";
import { mapAnthropicStopReason } from "./map_finish_reason.ts";
import { finishEventFields } from "../../canonical/finish_reason.ts";
import type { AnthropicStreamEvent, AnthropicUsage } from "./wire.ts";

type Block =
  | { kind: "text" }
  | { kind: "thinking"; detailIndex: number }
  | { kind: "tool"; toolIndex: number }
  | { kind: "other" };

export class AnthropicStreamConverter {
  #blocks = new Map<number, Block>();
  #tools = 0;
  #details = 0;
  #usage: AnthropicUsage | undefined;
  #stopReason: string | null | undefined;
  #done = false;

  get done(): boolean {
    return this.#done;
  }

  push(event: AnthropicStreamEvent): ChatStreamEvent[] {
    switch (event.type) {
      case "message_start":
        if ("message" in event) this.#usage = mergeAnthropicUsage(this.#usage, event.message.usage);
        return [];
      case "content_block_start":
        return "content_block" in event ? this.#start(event.index, event.content_block) : [];
      case "content_block_delta":
        return "delta" in event ? this.#delta(event.index, event.delta) : [];
      case "message_delta":
        if ("delta" in event && event.delta?.stop_reason) {
          this.#stopReason = event.delta.stop_reason;
        }
        if ("usage" in event) this.#usage = mergeAnthropicUsage(this.#usage, event.usage);
        return [];
      case "message_stop": {
        this.#done = true;
        const out: ChatStreamEvent[] = [{
          type: "finish",
          ...finishEventFields(mapAnthropicStopReason(this.#stopReason)),
        }];
        const usage = convertAnthropicUsage(this.#usage);
        if (usage !== undefined) out.push({ type: "usage", usage });
        return out;
      }
      case "error":
        throw anthropicStreamFailure("error" in event ? event.error?.type : undefined);
      default:
        // content_block_stop, ping and unknown event types carry nothing for the client.
        return [];
    }
  }

  /** Called when the upstream body ended; throws when `message_stop` never came. */
  end(): void {
    if (!this.#done) throw new UpstreamFailure("unavailable", "The provider's stream ended early.");
  }

  #start(index: number, block: Record<string, unknown> & { type: string }): ChatStreamEvent[] {
    switch (block.type) {
      case "text": {
        this.#blocks.set(index, { kind: "text" });
        const text = typeof block.text === "string" ? block.text : "";
        return text === "" ? [] : [{ type: "text-delta", text }];
      }
      case "thinking": {
        const detailIndex = this.#details++;
        this.#blocks.set(index, { kind: "thinking", detailIndex });
        const text = typeof block.thinking === "string" ? block.thinking : "";
        return text === "" ? [] : this.#thinking(detailIndex, text);
      }
      case "redacted_thinking": {
        this.#blocks.set(index, { kind: "other" });
        if (typeof block.data !== "string") return [];
        const detail = {
          type: "reasoning.encrypted" as const,
          data: block.data,
          format: ANTHROPIC_REASONING_FORMAT,
        };
        return [{ type: "reasoning-detail", detail: { ...detail, index: this.#details++ } }];
      }
      case "tool_use": {
        const toolIndex = this.#tools++;
        this.#blocks.set(index, { kind: "tool", toolIndex });
        return [{
          type: "tool-call-delta",
          index: toolIndex,
          id: String(block.id ?? ""),
          name: String(block.name ?? ""),
          arguments: "",
        }];
      }
      default:
        this.#blocks.set(index, { kind: "other" });
        return [];
    }
  }

  #delta(index: number, delta: Record<string, unknown> & { type: string }): ChatStreamEvent[] {
    const block = this.#blocks.get(index);
    switch (delta.type) {
      case "text_delta":
        return typeof delta.text === "string" && delta.text !== ""
          ? [{ type: "text-delta", text: delta.text }]
          : [];
      case "thinking_delta":
        if (block?.kind !== "thinking" || typeof delta.thinking !== "string") return [];
        return this.#thinking(block.detailIndex, delta.thinking);
      case "signature_delta":
        if (block?.kind !== "thinking" || typeof delta.signature !== "string") return [];
        return [{
          type: "reasoning-detail",
          detail: {
            type: "reasoning.text",
            text: "",
            signature: delta.signature,
            format: ANTHROPIC_REASONING_FORMAT,
            index: block.detailIndex,
          },
        }];
      case "input_json_delta":
        if (
          block?.kind !== "tool" || typeof delta.partial_json !== "string" ||
          delta.partial_json === ""
        ) return [];
        return [{ type: "tool-call-delta", index: block.toolIndex, arguments: delta.partial_json }];
      default:
        return [];
    }
  }

  #thinking(detailIndex: number, text: string): ChatStreamEvent[] {
    return [
      { type: "reasoning-delta", text },
      {
        type: "reasoning-detail",
        detail: {
          type: "reasoning.text",
          text,
          format: ANTHROPIC_REASONING_FORMAT,
          index: detailIndex,
        },
      },
    ];
  }
}
