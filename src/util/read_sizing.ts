/**
 * How large the next read buffer of a long-lived reader should be. A pending read holds its
 * buffer for as long as the peer is silent, so an open stream waiting for its next event would
 * hold a large buffer for its whole life. Reads start small; one that fills the small buffer
 * moves to the large one (a bulk transfer: an upload, a burst of events, a long answer), and
 * `SMALL_READS_TO_SHRINK` reads in a row that the small one would have held move back.
 * Used by the upstream stream reader (`providers/event_batches.ts`).
 */
const SMALL_READS_TO_SHRINK = 8;

export class ReadSizing {
  #large = false;
  #smallReads = 0;

  constructor(readonly smallBytes: number, readonly largeBytes: number) {}

  /** The size of the buffer the next read should get. */
  get size(): number {
    return this.#large ? this.largeBytes : this.smallBytes;
  }

  /** Reports that a read into a buffer of `size` bytes gave `n` bytes. */
  filled(n: number): void {
    if (!this.#large) {
      this.#large = n >= this.smallBytes;
      return;
    }
    if (n > this.smallBytes) {
      this.#smallReads = 0;
    } else if (++this.#smallReads >= SMALL_READS_TO_SHRINK) {
      this.#large = false;
      this.#smallReads = 0;
    }
  }
}
