/**
 * The pause a group committer takes between two commits under load (`SOVRA_COMMIT_INTERVAL_MS`),
 * cut short by an urgent write: a request's admission record, which its answer waits for
 * (issue 17). Settles and plain rate increments wait for the interval as before; an urgent
 * write goes out with the next commit at once, taking everything queued with it.
 */
export class CommitPacer {
  #urgent = false;
  #wake: (() => void) | undefined;

  /** A write someone waits for was queued. */
  hurry(): void {
    this.#urgent = true;
    this.#wake?.();
  }

  /** Waits `ms` unless an urgent write is (or gets) queued; clears the urgency. */
  async pause(ms: number): Promise<void> {
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
  }
}
