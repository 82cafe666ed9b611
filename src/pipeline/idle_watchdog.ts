/**
 * Cuts an upstream that stays silent: while a read is pending for `ms`, `onIdle` fires (and
 * aborts the upstream fetch). Time spent waiting for a slow client does not count, only
 * waiting on the upstream. The deadlines of every open stream share one interval
 * (`deadline_sweep.ts`): no timer per stream (each held a Node `Timeout`, its callback and a
 * pending timer op for as long as the stream was open), and a cut comes at most one tick
 * (a tenth of `ms`, at most 1 s) late.
 */
import { type Deadline, DeadlineSweep } from "../util/deadline_sweep.ts";

const SWEEP = new DeadlineSweep();

export class IdleWatchdog {
  #deadline: Deadline | undefined;
  #stopped = false;
  readonly #ms: number;
  readonly #onIdle: () => void;
  readonly #fire = () => {
    this.#deadline = undefined;
    if (this.#stopped) return;
    this.stop();
    this.#onIdle();
  };

  /**
   * Plain fields, not TypeScript parameter properties: with those, the `#fire` closure is made
   * in the constructor, and (Deno 2.9's V8) an instance whose constructor made a closure over
   * `this` outlives every young-generation collection until the next full one, with all it
   * points to: here a finished stream's whole state (docs/performance.md, "Finished streams collected young").
   */
  constructor(ms: number, onIdle: () => void) {
    this.#ms = ms;
    this.#onIdle = onIdle;
  }

  /** Awaits `promise` as upstream waiting time. */
  async guard<T>(promise: Promise<T>): Promise<T> {
    this.begin();
    try {
      return await promise;
    } finally {
      this.end();
    }
  }

  /**
   * Upstream waiting time starts; `end()` when what was awaited settled. `guard` without its
   * own `async` frame, for the reads of an open stream (one frame less per waiting stream).
   */
  begin(): void {
    if (this.#stopped) return;
    SWEEP.delete(this.#deadline);
    this.#deadline = SWEEP.add(this.#ms, this.#fire);
  }

  end(): void {
    SWEEP.delete(this.#deadline);
    this.#deadline = undefined;
  }

  stop(): void {
    this.#stopped = true;
    this.end();
  }
}
