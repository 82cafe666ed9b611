/**
 * An upstream SSE body's bytes → the text an SSE parser is fed, cut after each read's last
 * line feed: the bytes after it (a line that goes on in the next read) wait, as bytes, and are
 * decoded with the next read's. Reads rarely end on an event's end (the reader's buffer fills
 * mid-event), and a parser fed the raw reads keeps the partial line as text and joins it with
 * the next read's: a copy of nearly every read's whole text, ~11 KB per 50-chunk stream, all
 * of it young-generation garbage (docs/performance.md, "Session 7: streamed answers").
 *
 * The parser sees the same text in the same order, and every line complete within a read is
 * still fed with that read, so it emits the same events at the same reads: an event ends at a
 * line feed, and a partial line emits nothing (a read without a line feed waits whole). A
 * carriage return anywhere (a line may end with CR alone, which a cut after the last line feed
 * would hold back) takes the plain way for good: everything is fed as it comes.
 */
const LF = 0x0a;
const CR = 0x0d;

export class LineText {
  readonly #decoder = new TextDecoder();
  /** Own copies of the bytes after the last line feed, in order (the read buffer is reused). */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** A carriage return was seen: feed everything as it comes. */
  #plain = false;

  /** The text to feed for this read: its complete lines, with the bytes that waited before them. */
  push(chunk: Uint8Array): string {
    if (this.#plain) return this.#decoder.decode(chunk, { stream: true });
    if (chunk.indexOf(CR) !== -1) {
      this.#plain = true;
      return this.#decoder.decode(this.#withPending(chunk), { stream: true });
    }
    const lastLf = chunk.lastIndexOf(LF);
    if (lastLf === -1) {
      if (chunk.length > 0) this.#wait(chunk);
      return "";
    }
    const complete = lastLf === chunk.length - 1 ? chunk : chunk.subarray(0, lastLf + 1);
    const text = this.#decoder.decode(this.#withPending(complete), { stream: true });
    if (lastLf < chunk.length - 1) this.#wait(chunk.subarray(lastLf + 1));
    return text;
  }

  #wait(bytes: Uint8Array): void {
    this.#pending.push(bytes.slice());
    this.#pendingBytes += bytes.length;
  }

  /** `bytes` after what waited, as one array; the waiting bytes are gone then. */
  #withPending(bytes: Uint8Array): Uint8Array {
    if (this.#pendingBytes === 0) return bytes;
    const all = new Uint8Array(this.#pendingBytes + bytes.length);
    let at = 0;
    for (const part of this.#pending) {
      all.set(part, at);
      at += part.length;
    }
    all.set(bytes, at);
    this.#pending.length = 0;
    this.#pendingBytes = 0;
    return all;
  }
}
