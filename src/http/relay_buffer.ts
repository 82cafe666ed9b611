/**
 * The read buffer of one direction of the connection guard's relay. A pending read holds its
 * buffer for as long as the peer is silent, so an open stream waiting for its next event would
 * hold a large buffer per direction for its whole life (2 × 16 KiB made ~32 KiB of every open
 * stream). Reads start with the small buffer; one that fills it switches to the large one (a
 * bulk transfer: an upload, a long answer), which is dropped again after `SMALL_READS_TO_SHRINK`
 * reads in a row that would have fitted the small one (an SSE event, a request, a short answer).
 */
const SMALL_READS_TO_SHRINK = 8;

export class RelayBuffer {
  readonly #smallBytes: number;
  readonly #largeBytes: number;
  #small: Uint8Array | undefined;
  #large: Uint8Array | undefined;
  #smallReads = 0;

  constructor(smallBytes: number, largeBytes: number) {
    this.#smallBytes = smallBytes;
    this.#largeBytes = largeBytes;
  }

  /** The buffer for the next read. */
  next(): Uint8Array {
    if (this.#large !== undefined) return this.#large;
    return this.#small ??= new Uint8Array(this.#smallBytes);
  }

  /** Reports how many bytes the read into `next()`'s buffer gave. */
  filled(n: number): void {
    if (this.#large === undefined) {
      if (n >= this.#smallBytes) this.#large = new Uint8Array(this.#largeBytes);
      return;
    }
    if (n > this.#smallBytes) {
      this.#smallReads = 0;
      return;
    }
    if (++this.#smallReads >= SMALL_READS_TO_SHRINK) {
      this.#large = undefined;
      this.#smallReads = 0;
    }
  }

  /** The size of the buffer the next read gets (tests). */
  get size(): number {
    return this.#large === undefined ? this.#smallBytes : this.#largeBytes;
  }
}
