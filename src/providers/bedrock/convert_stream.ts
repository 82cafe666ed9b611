/**
 * ConverseStream frames → canonical stream events. Blocks are keyed by `contentBlockIndex`
 * (text and reasoning blocks start with a delta, tool blocks with `contentBlockStart`).
 * `finish` comes at `messageStop`, `usage` at `metadata` (the last event).
 */
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import { ANTHROPIC_REASONING_FORMAT } from "../anthropic_messages/group_turns.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import { convertBedrockUsage } from "./convert_usage.ts";
import { bedrockExceptionFailure } from "./errors.ts";
import type { EventStreamFrame } from "./eventstream_decoder.ts";
import { mapBedrockStopReason } from "./map_finish_reason.ts";
import { finishEventFields } from "../../canonical/finish_reason.ts";
import {
  ContentBlockDeltaEvent,
  ContentBlockStartEvent,
  MessageStopEvent,
  MetadataEvent,
} from "./wire.ts";

const utf8 = new TextDecoder();

export class BedrockStreamConverter {
  #format: string | null;
  #tools = new Map<number, number>();
  #reasoning = new Map<number, number>();
  #details = 0;
  #stopped = false;

  constructor(anthropic: boolean) {
    this.#format = anthropic ? ANTHROPIC_REASONING_FORMAT : null;
  }

  push(frame: EventStreamFrame): ChatStreamEvent[] {
    if (frame.messageType === "exception") throw bedrockExceptionFailure(frame.name, frame.payload);
    if (frame.messageType === "error") {
      throw new UpstreamFailure("unavailable", `Bedrock's stream failed ('${frame.name}').`);
    }
    if (frame.messageType !== "event") return [];
    switch (frame.name) {
      case "contentBlockStart":
        return this.#start(ContentBlockStartEvent.parse(json(frame.payload)));
      case "contentBlockDelta":
        return this.#delta(ContentBlockDeltaEvent.parse(json(frame.payload)));
      case "messageStop": {
        this.#stopped = true;
        const stop = MessageStopEvent.parse(json(frame.payload));
        return [{ type: "finish", ...finishEventFields(mapBedrockStopReason(stop.stopReason)) }];
      }
      case "metadata": {
        const usage = convertBedrockUsage(MetadataEvent.parse(json(frame.payload)).usage);
        return usage === undefined ? [] : [{ type: "usage", usage }];
      }
      default:
        // messageStart, contentBlockStop and unknown event types carry nothing for the client.
        return [];
    }
  }

  /** Called when the upstream body ended; throws when `messageStop` never came. */
  end(): void {
    if (!this.#stopped) {
      throw new UpstreamFailure("unavailable", "The provider's stream ended early.");
    }
  }

  #start(event: ReturnType<typeof ContentBlockStartEvent.parse>): ChatStreamEvent[] {
    const toolUse = event.start?.toolUse;
    if (!toolUse) return [];
    const index = this.#tools.size;
    this.#tools.set(event.contentBlockIndex, index);
    return [{
      type: "tool-call-delta",
      index,
      id: toolUse.toolUseId,
      name: toolUse.name,
      arguments: "",
    }];
  }

  #delta(event: ReturnType<typeof ContentBlockDeltaEvent.parse>): ChatStreamEvent[] {
    const { delta, contentBlockIndex } = event;
    if (typeof delta.text === "string") {
      return delta.text === "" ? [] : [{ type: "text-delta", text: delta.text }];
    }
    if (delta.toolUse) {
      const index = this.#tools.get(contentBlockIndex);
      const input = delta.toolUse.input ?? "";
      return index === undefined || input === ""
        ? []
        : [{ type: "tool-call-delta", index, arguments: input }];
    }
    const reasoning = delta.reasoningContent;
    if (!reasoning) return [];
    if (typeof reasoning.redactedContent === "string") {
      const detail = {
        type: "reasoning.encrypted" as const,
        data: reasoning.redactedContent,
        format: this.#format,
      };
      return [{
        type: "reasoning-detail",
        detail: { ...detail, index: this.#detailIndex(contentBlockIndex) },
      }];
    }
    const index = this.#detailIndex(contentBlockIndex);
    const out: ChatStreamEvent[] = [];
    if (typeof reasoning.text === "string" && reasoning.text !== "") {
      out.push({ type: "reasoning-delta", text: reasoning.text });
      out.push({
        type: "reasoning-detail",
        detail: { type: "reasoning.text", text: reasoning.text, format: this.#format, index },
      });
    }
    if (typeof reasoning.signature === "string" && reasoning.signature !== "") {
      out.push({
        type: "reasoning-detail",
        detail: {
          type: "reasoning.text",
          text: "",
          signature: reasoning.signature,
          format: this.#format,
          index,
        },
      });
    }
    return out;
  }

  #detailIndex(blockIndex: number): number {
    let index = this.#reasoning.get(blockIndex);
    if (index === undefined) {
      index = this.#details++;
      this.#reasoning.set(blockIndex, index);
    }
    return index;
  }
}

function json(payload: Uint8Array): unknown {
  return JSON.parse(utf8.decode(payload));
}
