/**
 * AWS event-stream framing (`application/vnd.amazon.eventstream`): bytes arrive in arbitrary
 * pieces; whole frames are cut by their length prefix and decoded by
 * `@smithy/eventstream-codec`, which checks the prelude and message CRC32s.
 */
import { EventStreamCodec, type Message } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

/** Frames above this size are treated as corrupt rather than buffered. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;
const MIN_FRAME_BYTES = 16;

export interface EventStreamFrame {
  /** `:message-type`: `event`, `exception` or `error`. */
  messageType: string;
  /** `:event-type`, `:exception-type` or `:error-code`, by message type. */
  name: string;
  headers: Record<string, string>;
  payload: Uint8Array;
}

export class EventStreamDecoder {
  #codec = new EventStreamCodec(toUtf8, fromUtf8);
  #buffer: Uint8Array = new Uint8Array(0);

  /** Adds bytes; returns the frames completed by them. Throws on a bad CRC or length. */
  push(chunk: Uint8Array): EventStreamFrame[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : concat(this.#buffer, chunk);
    const frames: EventStreamFrame[] = [];
    while (this.#buffer.length >= 4) {
      const view = new DataView(
        this.#buffer.buffer,
        this.#buffer.byteOffset,
        this.#buffer.byteLength,
      );
      const total = view.getUint32(0, false);
      if (total < MIN_FRAME_BYTES || total > MAX_FRAME_BYTES) {
        throw new Error(`Event-stream frame length ${total} is out of range.`);
      }
      if (this.#buffer.length < total) break;
      const frame = this.#buffer.subarray(0, total);
      this.#buffer = this.#buffer.subarray(total);
      frames.push(toFrame(this.#codec.decode(frame)));
    }
    // Keep only a copy of a partial frame: the reader reuses its buffer for the next read.
    if (this.#buffer.length > 0) this.#buffer = this.#buffer.slice();
    return frames;
  }

  /** Throws when the stream ended inside a frame. */
  end(): void {
    if (this.#buffer.length > 0) throw new Error("Event stream ended inside a frame.");
  }
}

function toFrame(message: Message): EventStreamFrame {
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(message.headers)) {
    if (header.type === "string") headers[name] = header.value;
  }
  const messageType = headers[":message-type"] ?? "event";
  const name = messageType === "exception"
    ? headers[":exception-type"] ?? ""
    : messageType === "error"
    ? headers[":error-code"] ?? ""
    : headers[":event-type"] ?? "";
  return { messageType, name, headers, payload: message.body };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
