/**
 * What a stream produced, kept while it passes through, for billing: the reported usage,
 * or the generated text to estimate from when the provider reported none or the client left.
 * A chunk forwarded without parsing (stream pass-through) is kept as it is and decoded only
 * when the text is asked for, or once the kept chunks pass `KEPT_CHUNK_CHARS` (a long stream
 * then holds text, not whole chunks); a forwarded chunk whose text is known without parsing
 * (`ForwardedChunk.text`: most of a stream) is kept as that text alone, and one taken from the
 * upstream's bytes as those bytes, copied into one buffer per stream (`textBytes`); the chunks
 * that carry usage or a finish reason are always parsed on the way, so `usage` and
 * `finishReason` are known without decoding.
 */
import type { ChatStreamEvent, FinishReason } from "./chat.ts";
import type { ForwardedChunk, PassthroughItem } from "./forwarded_chunk.ts";
import { mergeUsage, type Usage } from "./usage.ts";

/** Characters of undecoded forwarded chunks a stream keeps before decoding them to text. */
export const KEPT_CHUNK_CHARS = 32 * 1024;
/** The first buffer for a stream's text bytes (it doubles as it fills). */
const INITIAL_TEXT_BYTES = 512;
const ASCII = new TextDecoder();

export class StreamAccounting {
  usage: Usage | undefined;
  finishReason: FinishReason | undefined;
  /** The upstream's own finish reason beside `other` (one no mapper knows). */
  rawFinishReason: string | undefined;
  /** Events (or forwarded chunks) seen; 0 means the stream never started. */
  events = 0;
  /**
   * Generated text in order; forwarded chunks stand for theirs until it is asked for, and a
   * number for a run of `#bytes` (the text of chunks that came as bytes, `textBytes`): the run
   * ends there and starts where the run before it ended.
   */
  #generated: (string | ForwardedChunk | number)[] = [];
  /**
   * The text of chunks forwarded as bytes, copied (their views are the upstream read buffer's):
   * one buffer per stream rather than a string per chunk.
   */
  #bytes: Uint8Array | undefined;
  #byteLength = 0;
  /** Characters of the undecoded chunks in `#generated` from `#keptFrom` on. */
  #keptChars = 0;
  #keptFrom = 0;

  observe(item: PassthroughItem): void {
    if (item.type === "forwarded") {
      if (item.textBytes !== undefined) {
        this.events++;
        this.#keepBytes(item.textBytes);
        return;
      }
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
    this.#bytes = undefined;
    this.#byteLength = 0;
    this.#keptChars = 0;
    this.#keptFrom = 0;
  }

  /** Appends a chunk's text bytes to `#bytes`, extending the last run or starting one. */
  #keepBytes(text: Uint8Array): void {
    const end = this.#byteLength + text.length;
    let bytes = this.#bytes;
    if (bytes === undefined || end > bytes.length) {
      const grown = new Uint8Array(Math.max(INITIAL_TEXT_BYTES, end, 2 * (bytes?.length ?? 0)));
      if (bytes !== undefined) grown.set(bytes.subarray(0, this.#byteLength));
      this.#bytes = bytes = grown;
    }
    bytes.set(text, this.#byteLength);
    this.#byteLength = end;
    const last = this.#generated.length - 1;
    if (typeof this.#generated[last] === "number") this.#generated[last] = end;
    else this.#generated.push(end);
  }

  /** Replaces the kept chunks by their text. */
  #decodeKept(): void {
    for (let i = this.#keptFrom; i < this.#generated.length; i++) {
      const part = this.#generated[i]!;
      if (typeof part === "object") this.#generated[i] = textOf(part);
    }
    this.#keptFrom = this.#generated.length;
    this.#keptChars = 0;
  }

  /** Everything generated so far, for a tokenizer estimate. */
  generatedText(): string {
    let text = "";
    let runStart = 0;
    for (const part of this.#generated) {
      if (typeof part === "string") text += part;
      else if (typeof part === "number") {
        // ASCII only (`textBytes`), so a run's text is its bytes, decoded at once.
        text += ASCII.decode(this.#bytes!.subarray(runStart, part));
        runStart = part;
      } else text += textOf(part);
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
