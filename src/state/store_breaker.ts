/**
 * A deadline and a circuit breaker for the store calls on the request path.
 *
 * What opens it: two reads in a row that fail with an outage error or do not answer within
 * `deadlineMs` (a failed write the backend reports counts like a read); or a write an answer
 * waits for that has not landed within two deadlines. Writes are judged on their own because a
 * store can be half away: a KV file another process holds write-locked still answers every read
 * while no commit lands, so a read's success must not hide a write path that stands still. A
 * write slower than one deadline alone opens nothing (a loaded machine's group commit can take
 * that long, and an open circuit lets the rate limit fail open).
 *
 * While it is open, callers that have something to serve — a cached key or policy, the last
 * gate snapshot — serve it without calling (`open`), and writes an answer waits for are no
 * longer waited for; a call with nothing to fall back on still tries the store, bounded by the
 * deadline (failing at once would only make its error certain, also in the seconds between the
 * store's return and the next probe). No request ever probes: while open, `probe` (a small
 * write: the lease renewal) runs every `probeMs` in the background, and its first success (or
 * any write that lands) closes the breaker, so the first request after an outage finds the store
 * ready and is not slowed. Deadlines ride one shared sweep (`deadline_sweep.ts`): no timer per
 * call.
 */
import { errorMessage, type Logger } from "../log.ts";
import { withDeadline } from "./deadline.ts";
import { DeadlineSweep } from "../util/deadline_sweep.ts";

/** Retries of a call that met a dead pooled connection: one for each of a pool's connections. */
const RETRIES = 10;

async function retried<T>(op: () => Promise<T>, retry: (error: unknown) => boolean): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (attempt >= RETRIES || !retry(error)) throw error;
    }
  }
}

export class StoreUnavailable extends Error {
  override name = "StoreUnavailable";
}

export interface StoreBreakerOptions {
  deadlineMs: number;
  /** How often an open breaker probes the store. */
  probeMs?: number;
  /** A small round trip through the store's write path. */
  probe: () => Promise<unknown>;
  /** Whether an error means the store is away (not: the data was refused). */
  isOutage?: (error: unknown) => boolean;
  log: Logger;
}

/** Outage errors or missed deadlines in a row that open the breaker. */
const ERRORS_TO_OPEN = 2;
/** Deadlines a write an answer waits for may take to land before the breaker opens. */
const WRITE_DEADLINES = 2;

export class StoreBreaker {
  #open = false;
  #errors = 0;
  #openedAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #recovered: Array<() => void> = [];
  #opened: Array<() => void> = [];
  /** Writes an answer waits for now: released when the breaker opens. */
  #waiting = new Set<() => void>();
  readonly #sweep = new DeadlineSweep();
  readonly deadlineMs: number;
  readonly #probeMs: number;

  constructor(private readonly options: StoreBreakerOptions) {
    this.deadlineMs = options.deadlineMs;
    this.#probeMs = options.probeMs ?? 1_000;
  }

  /** True while the store is taken for away. */
  get open(): boolean {
    return this.#open;
  }

  /** Runs `listener` each time the breaker opens (the store is taken for away). */
  onOpened(listener: () => void): void {
    this.#opened.push(listener);
  }

  /** Runs `listener` each time the breaker closes again (the store answered a probe). */
  onRecovered(listener: () => void): void {
    this.#recovered.push(listener);
  }

  /**
   * A request-path call: the call's answer, or a rejection at the deadline (the call itself
   * goes on), open or not. Callers with a fallback check `open` first and do not call. `retry`: an error worth an immediate
   * retry (a pooled connection the server closed: the retry gets another one).
   */
  call<T>(op: () => Promise<T>, retry?: (error: unknown) => boolean): Promise<T> {
    return this.#bounded(retry ? retried(op, retry) : op(), false);
  }

  /**
   * A write an answer waits for: settles with it, or resolves at once while (and as soon as)
   * the breaker is open; one that has not landed within two deadlines opens it. The write
   * itself goes on (what it does once the store is back is the backend's: a KV commit lands, a
   * PostgreSQL rate increment is dropped).
   */
  wait(write: Promise<void>): Promise<void> {
    if (this.#open) {
      write.catch(() => {});
      return Promise.resolve();
    }
    return this.#bounded(write, true);
  }

  /** A store call failed (told by the backend too, for writes it keeps, e.g. spilled settles). */
  failure(error: unknown): void {
    if (this.#closed) return;
    if (!(error instanceof StoreUnavailable) && !(this.options.isOutage?.(error) ?? true)) return;
    this.#errors++;
    if (this.#errors >= ERRORS_TO_OPEN) this.#trip(error);
  }

  /** The store is taken for away: every waiting write is released, the probe starts. */
  #trip(reason: unknown): void {
    if (this.#open || this.#closed) return;
    this.#open = true;
    this.#openedAt = Date.now();
    this.options.log.error("store unavailable: serving from caches and the last gate snapshots", {
      reason: errorMessage(reason),
    });
    for (const release of [...this.#waiting]) release();
    for (const listener of this.#opened) listener();
    this.#schedule();
  }

  /** Stops probing (shutdown). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  /**
   * `work` under the deadline; a `write`: released (resolved) when the breaker opens, and
   * opening it when it has not landed within `WRITE_DEADLINES` deadlines.
   */
  #bounded<T>(work: Promise<T>, write: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = () => {
        if (settled) return false;
        settled = true;
        this.#sweep.delete(deadline);
        if (release) this.#waiting.delete(release);
        return true;
      };
      const release = write
        ? () => {
          if (finish()) resolve(undefined as T);
        }
        : undefined;
      const deadline = write
        ? this.#sweep.add(WRITE_DEADLINES * this.deadlineMs, () => {
          // The write path stands still: the breaker opens, and `release` lets this one go.
          this.#trip(
            new StoreUnavailable(
              `A write did not land within ${WRITE_DEADLINES * this.deadlineMs} ms.`,
            ),
          );
          release!();
        })
        : this.#sweep.add(this.deadlineMs, () => {
          if (!finish()) return;
          const late = new StoreUnavailable(
            `The store did not answer within ${this.deadlineMs} ms.`,
          );
          this.failure(late);
          reject(late);
        });
      if (release) this.#waiting.add(release);
      work.then((value) => {
        if (!finish()) return;
        this.#errors = 0;
        resolve(value);
      }, (error) => {
        if (!finish()) return;
        // A write's failure is told by the backend itself (`failure`): counted once.
        if (!write) this.failure(error);
        reject(error);
      });
    });
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#probe(), this.#probeMs);
    Deno.unrefTimer(this.#timer);
  }

  /** A write reached the store (told by the backend): an open breaker closes at once. */
  success(): void {
    this.#errors = 0;
    if (!this.#open || this.#closed) return;
    clearTimeout(this.#timer);
    this.#open = false;
    this.options.log.info("store available again", { after_ms: Date.now() - this.#openedAt });
    for (const listener of this.#recovered) listener();
  }

  async #probe(): Promise<void> {
    if (!this.#open) return;
    try {
      await withDeadline(this.options.probe(), this.deadlineMs);
    } catch {
      if (this.#open) this.#schedule();
      return;
    }
    this.success();
  }
}
