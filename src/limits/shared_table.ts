/**
 * The process-wide table behind the instance limits: one `SharedArrayBuffer` created by the
 * primary isolate and handed to every `SOVRA_WORKERS` isolate at start, so every isolate's gate
 * counts with the same numbers (a key's admissions, an organization's debits and holds) using
 * `Atomics` — ~15–20 ns an operation, against ~90 µs for a message round trip to an authority
 * isolate (docs/performance.md, "Shared limits in one table, not an authority isolate").
 *
 * Layout: a header of Int32 words (the transcription slots' count), one lock word per bucket,
 * and fixed-size slots. A name (an API key id or an organization id) hashes to one bucket of
 * `WAYS` slots and lives in one of them; each slot holds a 64-bit fingerprint of its name and
 * three 64-bit counters (`queued`, `visible`, `held`; their meaning is `shared_counters.ts`'s)
 * plus a pin count: how many isolates have the slot in their own cache.
 *
 * - A lookup scans its bucket without a lock; a name not found is claimed under the bucket's
 *   lock (scanned again first), so a name never gets two slots.
 * - A slot no isolate pins, holding nothing and with nothing pending, is reclaimed by the
 *   primary's sweep (`reclaim`): under the bucket's lock it is marked busy, the pins are read
 *   again (an isolate pinning at that moment sees the mark and retries under the lock), then
 *   zeroed and freed. Counters never reset while a slot is in use.
 * - A full bucket is flagged for good: names that find no slot there all count in the one
 *   overflow slot (slot 0) from then on. Counting several names together only adds their
 *   pending amounts and holds up — stricter, never looser — and the first overflow of a bucket
 *   is reported (`onOverflow`, logged).
 */

/** Slots per bucket: a name's bucket is full only when 16 live names hash to it. */
export const WAYS = 16;
/** Buckets: 4,096 × 16 = 65,536 names at once (about 2 MiB). */
export const DEFAULT_BUCKETS = 4_096;

const HEADER_WORDS = 16;
/** Header words (Int32) of the transcription slots (`shared_semaphore.ts`). */
export const HEADER = { slotsActive: 0, slotsReleased: 1 } as const;

const FIELDS = 4;
const FP = 0;
export const QUEUED = 1;
export const VISIBLE = 2;
export const HELD = 3;

const EMPTY = 0n;
/** A slot being reclaimed (only while its bucket's lock is held). */
const BUSY = -1n;
const OVERFLOW_FP = -2n;
/** The slot every name that finds no place counts in. */
export const OVERFLOW_SLOT = 0;

export class SharedTable {
  readonly buffer: SharedArrayBuffer;
  readonly buckets: number;
  /** Header words, then one lock word per bucket, then one flag word per bucket. */
  readonly words: Int32Array;
  /** Pins per slot. */
  readonly pins: Int32Array;
  /** `FIELDS` 64-bit words per slot. */
  readonly cells: BigInt64Array;

  private constructor(buffer: SharedArrayBuffer, buckets: number) {
    this.buffer = buffer;
    this.buckets = buckets;
    const slots = buckets * WAYS + 1;
    const wordsLength = HEADER_WORDS + 2 * buckets;
    const cellsOffset = Math.ceil((4 * (wordsLength + slots)) / 8) * 8;
    this.words = new Int32Array(buffer, 0, wordsLength);
    this.pins = new Int32Array(buffer, 4 * wordsLength, slots);
    this.cells = new BigInt64Array(buffer, cellsOffset, slots * FIELDS);
    Atomics.store(this.cells, OVERFLOW_SLOT * FIELDS + FP, OVERFLOW_FP);
  }

  /** A new table (the primary isolate). */
  static create(buckets = DEFAULT_BUCKETS): SharedTable {
    return new SharedTable(new SharedArrayBuffer(SharedTable.bytes(buckets)), buckets);
  }

  /** The table another isolate created (its buffer, as handed over at start). */
  static attach(buffer: SharedArrayBuffer): SharedTable {
    const buckets = bucketsOf(buffer.byteLength);
    return new SharedTable(buffer, buckets);
  }

  static bytes(buckets: number): number {
    const slots = buckets * WAYS + 1;
    const wordsLength = HEADER_WORDS + 2 * buckets;
    return Math.ceil((4 * (wordsLength + slots)) / 8) * 8 + 8 * FIELDS * slots;
  }

  /** Index of `field` of `slot` in `cells`. */
  cell(slot: number, field: number): number {
    return slot * FIELDS + field;
  }

  /**
   * The slot of `name`, pinned for the caller (release it with `unpin`), or `OVERFLOW_SLOT`
   * (never pinned) when its bucket has no room. `onOverflow` is told once per bucket.
   */
  pin(name: string, onOverflow?: (bucket: number) => void): number {
    const [bucket, fp] = fingerprint(name, this.buckets);
    const first = 1 + bucket * WAYS;
    for (let s = first; s < first + WAYS; s++) {
      if (Atomics.load(this.cells, s * FIELDS + FP) !== fp) continue;
      Atomics.add(this.pins, s, 1);
      // A reclaim that marked the slot before this pin was seen: retry under the lock.
      if (Atomics.load(this.cells, s * FIELDS + FP) === fp) return s;
      Atomics.sub(this.pins, s, 1);
      break;
    }
    this.#lock(bucket);
    try {
      let free = -1;
      for (let s = first; s < first + WAYS; s++) {
        const at = Atomics.load(this.cells, s * FIELDS + FP);
        if (at === fp) {
          Atomics.add(this.pins, s, 1);
          return s;
        }
        if (at === EMPTY && free < 0) free = s;
      }
      const flag = HEADER_WORDS + this.buckets + bucket;
      if (free < 0 || Atomics.load(this.words, flag) !== 0) {
        if (Atomics.compareExchange(this.words, flag, 0, 1) === 0) onOverflow?.(bucket);
        return OVERFLOW_SLOT;
      }
      Atomics.add(this.pins, free, 1);
      Atomics.store(this.cells, free * FIELDS + FP, fp);
      return free;
    } finally {
      this.#unlock(bucket);
    }
  }

  unpin(slot: number): void {
    if (slot !== OVERFLOW_SLOT) Atomics.sub(this.pins, slot, 1);
  }

  /**
   * Frees every slot that no isolate pins, holds nothing and has nothing pending (its queued
   * amounts all visible); returns how many. Run by one isolate (the primary).
   */
  reclaim(): number {
    let freed = 0;
    const slots = this.buckets * WAYS + 1;
    for (let s = 1; s < slots; s++) {
      if (Atomics.load(this.pins, s) !== 0) continue;
      const fp = Atomics.load(this.cells, s * FIELDS + FP);
      if (fp === EMPTY || !this.#idle(s)) continue;
      const bucket = Math.floor((s - 1) / WAYS);
      this.#lock(bucket);
      try {
        if (Atomics.compareExchange(this.cells, s * FIELDS + FP, fp, BUSY) !== fp) continue;
        if (Atomics.load(this.pins, s) !== 0 || !this.#idle(s)) {
          Atomics.store(this.cells, s * FIELDS + FP, fp);
          continue;
        }
        Atomics.store(this.cells, s * FIELDS + QUEUED, 0n);
        Atomics.store(this.cells, s * FIELDS + VISIBLE, 0n);
        Atomics.store(this.cells, s * FIELDS + HELD, 0n);
        Atomics.store(this.cells, s * FIELDS + FP, EMPTY);
        freed++;
      } finally {
        this.#unlock(bucket);
      }
    }
    return freed;
  }

  /** Names in the table now (tests, metrics). */
  get used(): number {
    let n = 0;
    for (let s = 1; s < this.buckets * WAYS + 1; s++) {
      if (Atomics.load(this.cells, s * FIELDS + FP) !== EMPTY) n++;
    }
    return n;
  }

  #idle(s: number): boolean {
    return Atomics.load(this.cells, s * FIELDS + HELD) === 0n &&
      Atomics.load(this.cells, s * FIELDS + QUEUED) ===
        Atomics.load(this.cells, s * FIELDS + VISIBLE);
  }

  #lock(bucket: number): void {
    const word = HEADER_WORDS + bucket;
    while (Atomics.compareExchange(this.words, word, 0, 1) !== 0) {
      // Held for a few atomic operations by another isolate: wait a little, then try again.
      Atomics.wait(this.words, word, 1, 1);
    }
  }

  #unlock(bucket: number): void {
    const word = HEADER_WORDS + bucket;
    Atomics.store(this.words, word, 0);
    Atomics.notify(this.words, word);
  }
}

function bucketsOf(bytes: number): number {
  for (let buckets = 1; buckets <= 1 << 20; buckets *= 2) {
    if (SharedTable.bytes(buckets) === bytes) return buckets;
  }
  throw new Error("Not a shared limit table.");
}

/**
 * The bucket and the 64-bit fingerprint of a name: two FNV-1a hashes of its UTF-16 code units.
 * Two names with one fingerprint in one bucket share a slot: counted together (stricter).
 */
export function fingerprint(name: string, buckets: number): [number, bigint] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ name.length;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  const bucket = (a >>> 0) % buckets;
  let fp = BigInt.asIntN(
    64,
    (BigInt(b >>> 0) << 32n) | BigInt((a ^ Math.imul(b, 0x27d4eb2d)) >>> 0),
  );
  // 0 (empty) and the two marks are never a name's fingerprint.
  if (fp === EMPTY || fp === BUSY || fp === OVERFLOW_FP) fp = 1n;
  return [bucket, fp];
}
