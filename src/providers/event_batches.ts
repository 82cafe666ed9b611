/**
 * An upstream body turned into a pull-based stream of canonical event batches: one batch per
 * upstream read, so the client gets one write per read instead of one per event. The upstream
 * is read only when the consumer pulls; cancelling the stream cancels the upstream body.
 * Bodies are read into one reused buffer (BYOB) where the body allows it: a default reader
 * allocates 64 KiB per read, which dominates the memory of many open streams.
 * Any failure becomes an UpstreamFailure (an abort by the caller's signal keeps its reason);
 * events decoded before a failure still go out first. The signal's abort cancels the body
 * here: once `fetch` has answered, Deno's own link from the signal to the body goes with the
 * unreachable Response at the next garbage collection, and an abort no longer stops the body
 * (a drain's cut or an idle cut then waits on a stream that goes on). When the upstream's
 * first event maps to no canonical event (a role-only chunk) an empty batch goes out at once:
 * the answer has started, and the client gets its first byte when the upstream's arrives, not
 * with the first token (which a slow model sends much later).
 */
import { ReadSizing } from "../read_sizing.ts";
import type { ChatStreamEvent } from "../canonical/chat.ts";
import { UpstreamFailure } from "./upstream_failure.ts";

export interface StreamDecoder<E = ChatStreamEvent> {
  /**
   * Events completed by this chunk of bytes. The chunk's buffer is reused by the next read:
   * a decoder that keeps bytes across calls keeps a copy.
   */
  push(chunk: Uint8Array): Iterable<E>;
  /** The body ended: last events, or a throw when the answer is incomplete. */
  end(): Iterable<E>;
  /**
   * True once the upstream sent a complete, well-formed event, even one that maps to no
   * canonical event (OpenAI's first chunk announces only the role). Decoders without it wait
   * for the first canonical event.
   */
  started?(): boolean;
}

/** An upstream stream's read buffer (`ReadSizing`): an SSE event or several, or a burst. */
export const SMALL_BUFFER_BYTES = 2 * 1024;
export const LARGE_BUFFER_BYTES = 8 * 1024;

/** Reads chunks into one reused buffer when the body is a byte stream. */
export function chunkReader(body: ReadableStream<Uint8Array>) {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    byob = undefined;
  }
  if (byob) {
    const reader = byob;
    const sizing = new ReadSizing(SMALL_BUFFER_BYTES, LARGE_BUFFER_BYTES);
    let buffer = new ArrayBuffer(sizing.size);
    return {
      async read(): Promise<Uint8Array | undefined> {
        const { done, value } = await reader.read(new Uint8Array(buffer));
        if (done || !value) return undefined;
        // `value` is handed out over this buffer; the next read may get a fresh one.
        buffer = value.buffer as ArrayBuffer;
        sizing.filled(value.length);
        if (buffer.byteLength !== sizing.size) buffer = new ArrayBuffer(sizing.size);
        return value;
      },
      /** The size of the buffer the next read gets (tests). */
      get size() {
        return buffer.byteLength;
      },
      cancel: (reason?: unknown) => reader.cancel(reason),
    };
  }
  const reader = body.getReader();
  return {
    async read(): Promise<Uint8Array | undefined> {
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    cancel: (reason?: unknown) => reader.cancel(reason),
  };
}

function asFailure(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof UpstreamFailure) return error;
  return new UpstreamFailure("unavailable", "The provider's stream broke off.", { cause: error });
}

export function eventBatches<E = ChatStreamEvent>(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  decoder: StreamDecoder<E>,
): ReadableStream<E[]> {
  const reader = chunkReader(body);
  let failure: unknown;
  let ended = false;
  let announced = false;
  // A pending read ends at once (done); the check after it turns that into the abort.
  const onAbort = () => reader.cancel(signal.reason).catch(() => {});
  const forget = () => signal.removeEventListener("abort", onAbort);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return new ReadableStream<E[]>({
    async pull(controller) {
      for (;;) {
        if (failure !== undefined) {
          forget();
          throw failure;
        }
        if (ended) {
          forget();
          controller.close();
          return;
        }
        const batch: E[] = [];
        try {
          const chunk = await reader.read();
          if (signal.aborted) throw signal.reason;
          if (chunk === undefined) {
            ended = true;
            for (const event of decoder.end()) batch.push(event);
          } else {
            for (const event of decoder.push(chunk)) batch.push(event);
          }
        } catch (error) {
          failure = asFailure(error, signal);
          reader.cancel().catch(() => {});
        }
        if (batch.length > 0 || (!announced && failure === undefined && decoder.started?.())) {
          announced = true;
          controller.enqueue(batch);
          return;
        }
      }
    },
    cancel(reason) {
      forget();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
