/**
 * A count of slots shared by every isolate of the process (the transcription slots: the spec's
 * "4 per gateway instance"), in two header words of the shared table: slots taken, and a
 * counter bumped at every release that waiting isolates watch (`Atomics.waitAsync`), so a slot
 * freed in one isolate is taken by a request waiting in another at once.
 */
import { HEADER } from "./shared_table.ts";

export class SharedSemaphore {
  /** `words`: the shared table's header (`HEADER` says which words). */
  constructor(private readonly words: Int32Array, readonly max: number) {}

  /** A semaphore of this isolate alone (no other isolate counts). */
  static local(max: number): SharedSemaphore {
    return new SharedSemaphore(new Int32Array(new SharedArrayBuffer(8)), max);
  }

  /** Takes a slot if one is free (every isolate counted). */
  tryAcquire(): boolean {
    const words = this.words;
    for (;;) {
      const taken = Atomics.load(words, HEADER.slotsActive);
      if (taken >= this.max) return false;
      if (Atomics.compareExchange(words, HEADER.slotsActive, taken, taken + 1) === taken) {
        return true;
      }
    }
  }

  release(): void {
    const words = this.words;
    Atomics.sub(words, HEADER.slotsActive, 1);
    Atomics.add(words, HEADER.slotsReleased, 1);
    Atomics.notify(words, HEADER.slotsReleased);
  }

  /** The release counter now: pass it to `released` before trying again. */
  releases(): number {
    return Atomics.load(this.words, HEADER.slotsReleased);
  }

  /** Resolves when a release follows `seen` (at once if one did), or after `ms`. */
  async released(seen: number, ms: number): Promise<void> {
    const wait = Atomics.waitAsync(this.words, HEADER.slotsReleased, seen, ms);
    if (wait.async) await wait.value;
  }

  /** Slots taken by every isolate (tests). */
  get taken(): number {
    return Atomics.load(this.words, HEADER.slotsActive);
  }
}
