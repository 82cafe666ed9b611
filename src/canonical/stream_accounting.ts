/**
 * What a stream produced, kept while it passes through, for billing: the reported usage,
 * or the generated text to estimate from when the provider reported none or the client left.
 */
import type { ChatStreamEvent, FinishReason } from "./chat.ts";
import { mergeUsage, type Usage } from "./usage.ts";

export class StreamAccounting {
  usage: Usage | undefined;
  finishReason: FinishReason | undefined;
  /** The upstream's own finish reason beside `other` (one no mapper knows). */
  rawFinishReason: string | undefined;
  /** Events seen; 0 means the stream never started. */
  events = 0;
  #generated: string[] = [];

  observe(event: ChatStreamEvent): void {
    this.events++;
    switch (event.type) {
      case "text-delta":
      case "reasoning-delta":
        this.#generated.push(event.text);
        break;
      case "tool-call-delta":
        if (event.name) this.#generated.push(event.name);
        this.#generated.push(event.arguments);
        break;
      case "usage":
        this.usage = mergeUsage(this.usage, event.usage);
        break;
      case "finish":
        this.finishReason = event.reason;
        this.rawFinishReason = event.raw;
        break;
      case "reasoning-detail":
        break;
      default:
        event satisfies never;
    }
  }

  /** Everything generated so far, for a tokenizer estimate. */
  generatedText(): string {
    return this.#generated.join("");
  }
}
