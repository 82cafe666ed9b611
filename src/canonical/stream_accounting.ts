/**
 * What a stream produced, kept while it passes through, for billing: the reported usage,
 * or the generated text to estimate from when the provider reported none or the client left.
 * A chunk forwarded without parsing (stream pass-through) is kept as it is and decoded only
 * when the text is asked for, or once the kept chunks pass `KEPT_CHUNK_CHARS` (a long stream
 * then holds text, not whole chunks); a forwarded chunk whose text is known without parsing
 * (`ForwardedChunk.text`: most of a stream) is kept as that text alone; the chunks that carry usage or a finish reason are always
 * parsed on the way, so `usage` and `finishReason` are known without decoding.
 */
import type { ChatStreamEvent, FinishReason } from "./chat.ts";
import type { ForwardedChunk, PassthroughItem } from "./forwarded_chunk.ts";
import { mergeUsage, type Usage } from "./usage.ts";

/** Characters of undecoded forwarded chunks a stream keeps before decoding them to text. */
export const KEPT_CHUNK_CHARS = 32 * 1024;

export class StreamAccounting {
  usage: Usage | undefined;
  finishReason: FinishReason | undefined;
  /** The upstream's own finish reason beside `other` (one no mapper knows). */
  rawFinishReason: string | undefined;
  /** Events (or forwarded chunks) seen; 0 means the stream never started. */
  events = 0;
  /** Generated text in order; forwarded chunks stand for theirs until it is asked for. */
  #generated: (string | ForwardedChunk)[] = [];
  /** Characters of the undecoded chunks in `#generated` from `#keptFrom` on. */
  #keptChars = 0;
  #keptFrom = 0;

  observe(item: PassthroughItem): void {
    if (item.type === "forwarded") {
      if (item.text !== undefined) {
        // The chunk goes with the client write; an open stream keeps only its text.
        this.events++;
        this.#generated.push(item.text);
        return;
      }
      if (!item.decoded) {
        this.events++;
        this.#generated.push(item);
        this.#keptChars += item.rest.length;
        if (this.#keptChars > KEPT_CHUNK_CHARS) this.#decodeKept();
        return;
      }
      for (const event of item.events()) this.observe(event);
      return;
    }
    this.events++;
    switch (item.type) {
      case "text-delta":
      case "reasoning-delta":
        this.#generated.push(item.text);
        break;
      case "tool-call-delta":
        if (item.name) this.#generated.push(item.name);
        this.#generated.push(item.arguments);
        break;
      case "usage":
        this.usage = mergeUsage(this.usage, item.usage);
        break;
      case "finish":
        this.finishReason = item.reason;
        this.rawFinishReason = item.raw;
        break;
      case "reasoning-detail":
        break;
      default:
        item satisfies never;
    }
  }

  /**
   * Lets go of the generated text once the settle has what it needs. A forwarded chunk keeps a
   * slice of its whole upstream read's text, and the objects of a finished stream stay reachable
   * past the young generation's next collections (docs/performance.md, "Finished streams collected young"): held until
   * then, every stream's text was promoted to the old generation.
   */
  release(): void {
    this.#generated = [];
    this.#keptChars = 0;
    this.#keptFrom = 0;
  }

  /** Replaces the kept chunks by their text. */
  #decodeKept(): void {
    for (let i = this.#keptFrom; i < this.#generated.length; i++) {
      const part = this.#generated[i]!;
      if (typeof part !== "string") this.#generated[i] = textOf(part);
    }
    this.#keptFrom = this.#generated.length;
    this.#keptChars = 0;
  }

  /** Everything generated so far, for a tokenizer estimate. */
  generatedText(): string {
    let text = "";
    for (const part of this.#generated) {
      if (typeof part === "string") {
        text += part;
        continue;
      }
      text += textOf(part);
    }
    return text;
  }
}

function textOf(chunk: ForwardedChunk): string {
  let text = "";
  for (const event of chunk.events()) text += generatedBy(event);
  return text;
}

/** The text an event adds to the estimate (as `observe` counts it). */
function generatedBy(event: ChatStreamEvent): string {
  switch (event.type) {
    case "text-delta":
    case "reasoning-delta":
      return event.text;
    case "tool-call-delta":
      return (event.name || "") + event.arguments;
    default:
      return "";
  }
}
