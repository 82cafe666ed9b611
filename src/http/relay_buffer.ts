/**
 * The read buffer of one direction of the connection guard's relay, sized by `ReadSizing`
 * (2 × 16 KiB per open stream was ~32 KiB of every open stream); the large buffer is dropped
 * when the sizing moves back to the small one.
 */
import { ReadSizing } from "../util/read_sizing.ts";

export class RelayBuffer {
  readonly #sizing: ReadSizing;
  #small: Uint8Array | undefined;
  #large: Uint8Array | undefined;

  constructor(smallBytes: number, largeBytes: number) {
    this.#sizing = new ReadSizing(smallBytes, largeBytes);
  }

  /** The buffer for the next read. */
  next(): Uint8Array {
    return this.#sizing.size === this.#sizing.largeBytes
      ? this.#large ??= new Uint8Array(this.#sizing.largeBytes)
      : this.#small ??= new Uint8Array(this.#sizing.smallBytes);
  }

  /** Reports how many bytes the read into `next()`'s buffer gave. */
  filled(n: number): void {
    this.#sizing.filled(n);
    if (this.#sizing.size === this.#sizing.smallBytes) this.#large = undefined;
  }

  /** The size of the buffer the next read gets (tests). */
  get size(): number {
    return this.#sizing.size;
  }
}
