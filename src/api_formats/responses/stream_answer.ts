/**
 * The canonical answer accumulated from stream events: what billing settles when the stream
 * ends (completed, failed or cancelled), and what the encoder reads tool calls from.
 */
import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
  ReasoningDetail,
} from "../../canonical/chat.ts";
import { mergeUsage, type Usage } from "../../canonical/usage.ts";
import { mergeReasoningDetail } from "./reasoning_details.ts";

export interface AnswerCall {
  callId: string;
  name: string;
  arguments: string;
}

export class StreamAnswer {
  content: string | null = null;
  reasoning = "";
  readonly details: ReasoningDetail[] = [];
  /** By canonical tool-call index, in order of first appearance. */
  readonly calls = new Map<number, AnswerCall>();
  finish: FinishReason | undefined;
  usage: Usage | undefined;
  readonly #responseId: string;

  constructor(responseId: string) {
    this.#responseId = responseId;
  }

  /** Records one event. A call whose first fragment has no id gets `call_<response>_<index>`. */
  add(event: ChatStreamEvent): void {
    switch (event.type) {
      case "text-delta":
        this.content = (this.content ?? "") + event.text;
        return;
      case "reasoning-delta":
        this.reasoning += event.text;
        return;
      case "reasoning-detail":
        mergeReasoningDetail(this.details, event.detail);
        return;
      case "tool-call-delta": {
        const call = this.calls.get(event.index);
        if (call === undefined) {
          this.calls.set(event.index, {
            callId: event.id || `call_${this.#responseId.replace(/^resp_/, "")}_${event.index}`,
            name: event.name ?? "",
            arguments: event.arguments,
          });
          return;
        }
        if (event.name && call.name === "") call.name = event.name;
        call.arguments += event.arguments;
        return;
      }
      case "finish":
        this.finish = event.reason;
        return;
      case "usage":
        this.usage = mergeUsage(this.usage, event.usage);
        return;
    }
  }

  result(): ChatResult {
    const toolCalls = [...this.calls.values()].map((c) => ({
      id: c.callId,
      type: "function" as const,
      function: { name: c.name, arguments: c.arguments },
    }));
    return {
      id: this.#responseId,
      content: this.content,
      ...(this.reasoning !== "" ? { reasoning: this.reasoning } : {}),
      ...(this.details.length > 0 ? { reasoningDetails: this.details.slice() } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      finishReason: this.finish ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      usage: this.usage,
    };
  }
}
