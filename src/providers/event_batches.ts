/**
 * An upstream body turned into a pull-based reader of canonical event batches: one batch per
 * upstream read, so the client gets one write per read instead of one per event. The upstream
 * is read only when the consumer reads; cancelling the reader cancels the upstream body.
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
import { ReadSizing } from "../util/read_sizing.ts";
import type { ChatStreamEvent } from "../canonical/chat.ts";
import { UpstreamFailure } from "./upstream_failure.ts";

export interface StreamDecoder<E = ChatStreamEvent> {
  /**
   * Events completed by this chunk of bytes. The chunk's buffer is reused by the next read:
   * a decoder that keeps bytes across calls keeps a copy. An array returned is handed on as
   * the batch: the decoder must not touch it afterwards.
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
export function chunkReader(body: ReadableStream<Uint8Array>): ChunkReader {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    byob = undefined;
  }
  return byob ? new ByobChunkReader(byob) : new DefaultChunkReader(body.getReader());
}

/** The next chunk of an upstream body, `undefined` at its end. */
export interface ChunkReader {
  read(): Promise<Uint8Array | undefined>;
  /**
   * `read()` in two steps, for a caller that awaits the body's own read itself (one `async`
   * frame and promise less per chunk): the body's read, then `took` of its result.
   */
  next(): Promise<ReadableStreamReadResult<Uint8Array>>;
  took(result: ReadableStreamReadResult<Uint8Array>): Uint8Array | undefined;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * A class rather than an object of closures: one open stream holds one instance, with no
 * function objects of its own (memory per open stream).
 */
class ByobChunkReader implements ChunkReader {
  #sizing = new ReadSizing(SMALL_BUFFER_BYTES, LARGE_BUFFER_BYTES);
  #buffer = new ArrayBuffer(this.#sizing.size);
  constructor(private readonly reader: ReadableStreamBYOBReader) {}

  async read(): Promise<Uint8Array | undefined> {
    return this.took(await this.next());
  }

  next(): Promise<ReadableStreamReadResult<Uint8Array>> {
    return this.reader.read(new Uint8Array(this.#buffer));
  }

  took({ done, value }: ReadableStreamReadResult<Uint8Array>): Uint8Array | undefined {
    if (done || !value) return undefined;
    // `value` is handed out over this buffer; the next read may get a fresh one.
    this.#buffer = value.buffer as ArrayBuffer;
    this.#sizing.filled(value.length);
    if (this.#buffer.byteLength !== this.#sizing.size) {
      this.#buffer = new ArrayBuffer(this.#sizing.size);
    }
    return value;
  }

  /** The size of the buffer the next read gets (tests). */
  get size(): number {
    return this.#buffer.byteLength;
  }

  cancel(reason?: unknown): Promise<void> {
    return this.reader.cancel(reason);
  }
}

class DefaultChunkReader implements ChunkReader {
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  async read(): Promise<Uint8Array | undefined> {
    return this.took(await this.next());
  }

  next(): Promise<ReadableStreamReadResult<Uint8Array>> {
    return this.reader.read();
  }

  took({ done, value }: ReadableStreamReadResult<Uint8Array>): Uint8Array | undefined {
    return done ? undefined : value;
  }

  cancel(reason?: unknown): Promise<void> {
    return this.reader.cancel(reason);
  }
}

function asFailure(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof UpstreamFailure) return error;
  return new UpstreamFailure("unavailable", "The provider's stream broke off.", { cause: error });
}

/**
 * The batches of one upstream stream, read like a `ReadableStreamDefaultReader`: `read()`
 * resolves with the next batch or `done`, rejects with the failure (again on every later
 * read); `cancel()` stops the upstream, and reads after it are `done`. One reader at a time
 * (the pipeline awaits each read before the next). A plain object rather than a
 * `ReadableStream`: an open stream waiting for its upstream holds no stream, controller,
 * queue or reader of its own (memory per open stream).
 */
export interface EventBatches<E = ChatStreamEvent> {
  read(): Promise<ReadableStreamReadResult<E[]>>;
  cancel(reason?: unknown): Promise<void>;
}

export function eventBatches<E = ChatStreamEvent>(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  decoder: StreamDecoder<E>,
): EventBatches<E> {
  return new UpstreamBatches(chunkReader(body), signal, decoder);
}

class UpstreamBatches<E> implements EventBatches<E> {
  #failure: unknown = undefined;
  #ended = false;
  #cancelled = false;
  #announced = false;
  /**
   * The body's reader and the decoder, until the stream is done with (ended, failed or
   * cancelled): then they go, with the decoder's state and the read buffer. A finished stream's
   * objects can outlive the young generation's next collections (docs/performance.md,
   * "Finished streams collected young"), and whatever they still point to is promoted with them.
   */
  #reader: ChunkReader | undefined;
  #decoder: StreamDecoder<E> | undefined;
  readonly #signal: AbortSignal;
  // A pending read ends at once (done); the check after it turns that into the abort.
  #onAbort = () => this.#reader?.cancel(this.#signal.reason).catch(() => {});

  /**
   * Plain fields, not TypeScript parameter properties: with those, `#onAbort` is made in the
   * constructor, and an instance whose constructor made a closure over `this` outlives every
   * young-generation collection until the next full one (see `IdleWatchdog`).
   */
  constructor(reader: ChunkReader, signal: AbortSignal, decoder: StreamDecoder<E>) {
    this.#reader = reader;
    this.#decoder = decoder;
    this.#signal = signal;
    if (signal.aborted) this.#onAbort();
    else signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  #forget(): void {
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#reader = undefined;
    this.#decoder = undefined;
  }

  async read(): Promise<ReadableStreamReadResult<E[]>> {
    const signal = this.#signal;
    for (;;) {
      const reader = this.#reader;
      const decoder = this.#decoder;
      if (this.#cancelled) return { done: true };
      if (this.#failure !== undefined) {
        this.#forget();
        throw this.#failure;
      }
      if (this.#ended || reader === undefined || decoder === undefined) {
        this.#forget();
        return { done: true };
      }
      let batch: E[] = [];
      try {
        const chunk = reader.took(await reader.next());
        if (this.#cancelled) return { done: true };
        if (signal.aborted) throw signal.reason;
        if (chunk === undefined) this.#ended = true;
        const events = chunk === undefined ? decoder.end() : decoder.push(chunk);
        // A decoder's array is the batch (no copy); a generator's events are gathered one by
        // one, so those before a throw still go out.
        if (Array.isArray(events)) batch = events;
        else for (const event of events) batch.push(event);
      } catch (error) {
        if (this.#cancelled) return { done: true };
        this.#failure = asFailure(error, signal);
        reader.cancel().catch(() => {});
      }
      if (
        batch.length > 0 ||
        (!this.#announced && this.#failure === undefined && decoder.started?.())
      ) {
        this.#announced = true;
        return { done: false, value: batch };
      }
    }
  }

  cancel(reason?: unknown): Promise<void> {
    const reader = this.#reader;
    this.#cancelled = true;
    this.#forget();
    return reader ? reader.cancel(reason) : Promise.resolve();
  }
}
