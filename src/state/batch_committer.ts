/**
 * Group commit, backend by backend alike: writes queue; while a commit is in flight the next
 * ones wait; commits start at most every `minIntervalMs` after the previous one's start
 * (`CommitPacer`), and a batch cut by the backend's limits is followed at once. Every caller's
 * promise resolves only once its write is durable (or, where the backend says so, kept for a
 * replay). What a batch is and how it is written is the backend's: `take` cuts the next batch
 * off the queue, `commitBatch` writes it and settles each write's promise.
 */
import { CommitPacer } from "./commit_pacer.ts";
import type { CommitObserver } from "./store.ts";

/** A queued write: the backend's fields, and its caller's promise. */
export interface QueuedWrite {
  resolve: () => void;
  reject: (error: unknown) => void;
  /**
   * The request whose admission record this write carries: until a commit takes it, the
   * request's settle may take the record's place (`replaceAdmission`).
   */
  admits?: string | undefined;
}

const unset = () => {};

export abstract class BatchCommitter<W extends QueuedWrite> {
  protected readonly queue: W[] = [];
  #running = false;
  #closed = false;
  #idle: Array<() => void> = [];
  /** Queued writes carrying an admission record, by request id, until a commit takes them. */
  readonly #admissions = new Map<string, W>();
  readonly #pacer: CommitPacer;
  /** Told of every commit that failed (the request path's breaker opens). */
  readonly failures: Array<(error: unknown) => void> = [];
  /** Told of every commit that landed. */
  readonly successes: Array<() => void> = [];

  constructor(
    minIntervalMs: number,
    /** Told of every commit: how many writes it carried and how long it took. */
    protected readonly onCommit?: CommitObserver,
  ) {
    this.#pacer = new CommitPacer(minIntervalMs);
  }

  /** The next batch off the front of `queue` (at least one write). */
  protected abstract take(): W[];

  /** Writes the batch and settles each write's promise; `started`: when its turn came. */
  protected abstract commitBatch(batch: W[], started: number): Promise<void>;

  /**
   * Queues `write` (its `resolve` and `reject` are set here); resolves when it is durable.
   * `urgent`: an answer waits for it, so the next commit does not wait for the interval.
   */
  protected enqueue(write: W, urgent: boolean): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("The store is closed."));
    if (urgent) this.#pacer.hurry();
    else if (write.admits !== undefined && !this.#running) this.#pacer.defer();
    return new Promise<void>((resolve, reject) => {
      write.resolve = resolve;
      write.reject = reject;
      this.queue.push(write);
      if (write.admits !== undefined) this.#admissions.set(write.admits, write);
      if (!this.#running) {
        this.#running = true;
        queueMicrotask(() => this.#drain());
      }
    });
  }

  /**
   * The request's admission write, if no commit has taken it yet, is replaced in its place in
   * the queue by `build(queued)` (which carries what the admission write did), and the next
   * commit no longer waits for the interval: an answer waits for it. The admission's promise
   * settles with the new write's. Undefined, and nothing changed, once a commit has taken it.
   */
  protected replaceAdmission(
    requestId: string,
    build: (queued: W) => W,
  ): Promise<void> | undefined {
    const queued = this.#admissions.get(requestId);
    if (queued === undefined) return undefined;
    this.#admissions.delete(requestId);
    const index = this.queue.indexOf(queued);
    if (index < 0) return undefined;
    const next = build(queued);
    next.admits = undefined;
    const written = new Promise<void>((resolve, reject) => {
      next.resolve = () => {
        queued.resolve();
        resolve();
      };
      next.reject = (error) => {
        queued.reject(error);
        reject(error);
      };
    });
    this.queue[index] = next;
    this.#pacer.hurry();
    return written;
  }

  /**
   * A caller now waits for a write it queued without urgency: commit without the interval.
   * Nothing queued (its write already in flight, or none): no urgency left for later writes.
   */
  hurry(): void {
    if (this.queue.length > 0) this.#pacer.hurry();
  }

  /** Resolves when nothing is queued or in flight. */
  flushed(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async close(): Promise<void> {
    await this.flushed();
    this.#closed = true;
  }

  async #drain(): Promise<void> {
    let capped = false;
    while (this.queue.length > 0) {
      await this.#pacer.next(capped);
      const started = performance.now();
      const batch = this.take();
      for (const write of batch) {
        if (write.admits !== undefined) this.#admissions.delete(write.admits);
      }
      capped = this.queue.length > 0;
      await this.commitBatch(batch, started);
    }
    this.#running = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}

/** The placeholder a write carries until `enqueue` sets its promise's functions. */
export const UNSET: QueuedWrite = { resolve: unset, reject: unset };
