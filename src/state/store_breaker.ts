/**
 * A deadline and a circuit breaker for the store calls on the request path. A call that does
 * not answer within `deadlineMs`, two outage errors in a row, or a write the backend reports
 * failed (`failure`) open the breaker: from then on request-path calls fail at once (callers
 * serve what they cached: key lookups, policies, the last gate snapshot) and writes an answer
 * waits for are no longer waited for. No request ever probes: while open, `probe` (a small
 * write: the lease renewal) runs every `probeMs` in the background, and its first success closes
 * the breaker, so the first request after an outage finds the store ready and is not slowed.
 * Deadlines ride one shared sweep (`deadline_sweep.ts`): no timer per call.
 */
import { errorMessage, type Logger } from "../log.ts";
import { withDeadline } from "./deadline.ts";
import { DeadlineSweep } from "../deadline_sweep.ts";

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

/** Outage errors in a row that open the breaker (one missed deadline does). */
const ERRORS_TO_OPEN = 2;

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
   * A request-path call: rejects at once while open; otherwise the call's answer, or a
   * rejection at the deadline (the call itself goes on). `retry`: an error worth one immediate
   * retry (a pooled connection the server closed: the retry gets a new one).
   */
  call<T>(op: () => Promise<T>, retry?: (error: unknown) => boolean): Promise<T> {
    if (this.#open) {
      return Promise.reject(new StoreUnavailable("The store is unavailable (circuit open)."));
    }
    return this.#bounded(retry ? retried(op, retry) : op(), false);
  }

  /**
   * A write an answer waits for: settles with it, or resolves at once while (and as soon as)
   * the breaker is open, or at the deadline; the write itself goes on (what it does once the
   * store is back is the backend's: a KV commit lands, a PostgreSQL rate increment is dropped).
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
    const missed = error instanceof StoreUnavailable;
    if (!missed && !(this.options.isOutage?.(error) ?? true)) return;
    this.#errors++;
    if (this.#open || (!missed && this.#errors < ERRORS_TO_OPEN)) return;
    this.#open = true;
    this.#openedAt = Date.now();
    this.options.log.error("store unavailable: serving from caches and the last gate snapshots", {
      reason: errorMessage(error),
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

  /** `work` under the deadline; `write`: released (resolved) when the breaker opens. */
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
      const deadline = this.#sweep.add(this.deadlineMs, () => {
        if (!finish()) return;
        this.failure(
          new StoreUnavailable(`The store did not answer within ${this.deadlineMs} ms.`),
        );
        if (write) resolve(undefined as T);
        else reject(new StoreUnavailable(`The store did not answer within ${this.deadlineMs} ms.`));
      });
      if (release) this.#waiting.add(release);
      work.then((value) => {
        if (!finish()) return;
        this.#errors = 0;
        resolve(value);
      }, (error) => {
        if (!finish()) return;
        this.failure(error);
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
