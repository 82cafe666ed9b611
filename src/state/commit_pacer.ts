/**
 * When a group committer starts its next commit. Under load commits start at most every
 * `SOVRA_COMMIT_INTERVAL_MS`, counted from the previous commit's start even when the committer
 * went idle in between: a write that arrives 1 ms after a commit waits for the rest of the
 * interval and shares the next commit with everything queued meanwhile, instead of costing a
 * commit of its own (at 500 req/s each request's settle used to find the committer idle and
 * commit alone: two commits a request). An urgent write — a request's admission record, which
 * its answer's content waits for — cuts the wait short and takes everything queued
 * with it; settles and plain rate increments wait for the interval. A deferred admission (its
 * answer comes later, or, a whole answer, brings its settle to take the record's place) waits
 * for a whole interval even at an idle committer: at a commit of its own the moment it arrives,
 * a fast answer could not have carried its settle into it.
 */
export class CommitPacer {
  #urgent = false;
  #wake: (() => void) | undefined;
  #lastStart = -Infinity;

  constructor(private readonly intervalMs: number) {}

  /**
   * A write that may wait was queued while nothing waited for the interval (a deferred
   * admission at an idle committer): the next commit waits a whole interval from now, not from
   * the last commit's start, unless something is urgent.
   */
  defer(): void {
    const now = performance.now();
    if (this.#lastStart + this.intervalMs < now) this.#lastStart = now;
  }

  /** A write someone waits for was queued. */
  hurry(): void {
    this.#urgent = true;
    this.#wake?.();
  }

  /**
   * Waits until the interval since the previous commit's start has passed (at once when
   * `now` is set or an urgent write is, or gets, queued), clears the urgency and marks the
   * next commit's start.
   */
  async next(now = false): Promise<void> {
    const ms = now ? 0 : this.#lastStart + this.intervalMs - performance.now();
    if (ms > 0 && !this.#urgent) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.#wake?.(), ms);
        this.#wake = () => {
          clearTimeout(timer);
          this.#wake = undefined;
          resolve();
        };
      });
    }
    this.#urgent = false;
    this.#lastStart = performance.now();
  }
}
