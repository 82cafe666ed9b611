/**
 * Cuts an upstream that stays silent: while a read is pending for `ms`, `onIdle` fires (and
 * aborts the upstream fetch). One lazily re-armed timer per stream instead of a timer per
 * chunk; time spent waiting for a slow client does not count, only waiting on the upstream.
 */
export class IdleWatchdog {
  #waitingSince = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(private readonly ms: number, private readonly onIdle: () => void) {}

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
    this.#waitingSince = performance.now();
    this.#arm(this.ms);
  }

  end(): void {
    this.#waitingSince = 0;
  }

  #arm(ms: number): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#waitingSince === 0 || this.#stopped) return;
      const waited = performance.now() - this.#waitingSince;
      if (waited >= this.ms) {
        this.stop();
        this.onIdle();
      } else {
        this.#arm(this.ms - waited);
      }
    }, ms);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
