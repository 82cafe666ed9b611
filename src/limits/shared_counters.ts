/**
 * One isolate's use of the process-wide table (`shared_table.ts`): what every isolate of the
 * process has queued for the store and not yet made visible there, and the credit their requests
 * in flight hold, per name (an API key id: rate increments; an organization id: debits and
 * holds).
 *
 * Per name, all isolates together:
 * - `queued`: the total amount queued for the store (cumulative, never reset while in use);
 * - `visible`: the part of it every store connection can read now (committed; for a write that
 *   failed, given up on);
 * - `held`: credit held now by requests in flight.
 * Each isolate also counts its own part of `queued` and `visible`, so it can tell the others'.
 *
 * An isolate's gate adds to its own store read what its own tally has not sent (exact: its
 * handle is serial, `unsent_tally.ts`) and what the other isolates had not made visible when the
 * read was issued: `othersPending(name, othersVisible(name) taken before the read)`. A write made
 * visible after the mark is counted although the read may contain it: stricter for one refresh
 * period, never looser.
 *
 * A name stays pinned in this isolate's cache while it is used and for `evictAfterMs` after (more
 * than the oldest snapshot the gate may still serve, so no mark outlives its slot); only then,
 * with nothing of this isolate's pending or held, is it unpinned and its slot reclaimable.
 */
import { HELD, OVERFLOW_SLOT, QUEUED, type SharedTable, VISIBLE } from "./shared_table.ts";

/** A name's place in this isolate's cache (kept by a queued amount until it is visible). */
export interface Entry {
  slot: number;
  /** This isolate's part of the slot's `queued` and `visible` (for names sharing the overflow slot: this name's). */
  ownQueued: bigint;
  ownVisible: bigint;
  ownHeld: bigint;
  /** Sweep tick of the last use. */
  used: number;
}

/** How often unused names are unpinned (and, in the primary, free slots reclaimed). */
export const SWEEP_MS = 30_000;

export class SharedCounters {
  #cache = new Map<string, Entry>();
  #tick = 0;
  readonly #idleTicks: number;

  constructor(
    readonly table: SharedTable,
    /** Unused this long, a name is unpinned. */
    evictAfterMs: number,
    private readonly onOverflow?: (bucket: number) => void,
  ) {
    this.#idleTicks = Math.max(1, Math.ceil(evictAfterMs / SWEEP_MS)) + 1;
  }

  /**
   * `amount` queued for the store by this isolate; pass the returned entry to `visible` (an
   * entry with amounts pending is never evicted, so it stays this name's).
   */
  queued(name: string, amount: bigint): Entry {
    const entry = this.#entry(name);
    Atomics.add(this.table.cells, this.table.cell(entry.slot, QUEUED), amount);
    entry.ownQueued += amount;
    return entry;
  }

  /** `amount` queued earlier is visible to every store connection now (or given up on). */
  visible(entry: Entry, amount: bigint): void {
    Atomics.add(this.table.cells, this.table.cell(entry.slot, VISIBLE), amount);
    entry.ownVisible += amount;
  }

  /**
   * The name's entry, pinned, for the calls below (a gate snapshot keeps its key's and its
   * organization's: no lookup per request).
   */
  entry(name: string): Entry {
    return this.#entry(name);
  }

  /**
   * What the other isolates have made visible: take it right before issuing a store read.
   * (Totals are 64-bit and cumulative: they would wrap only past 9.2 · 10^18 µEUR.)
   */
  othersVisible(name: string | Entry): bigint {
    const entry = typeof name === "string" ? this.#entry(name) : this.#touch(name);
    return Atomics.load(this.table.cells, this.table.cell(entry.slot, VISIBLE)) - entry.ownVisible;
  }

  /**
   * What the other isolates queued that a read issued at `mark` (`othersVisible`) may lack;
   * `all`: the name's queued total to count from (`queuedTotal`), read now when absent.
   */
  othersPending(name: string | Entry, mark: bigint, all?: bigint): bigint {
    const entry = typeof name === "string" ? this.#entry(name) : this.#touch(name);
    const total = all ?? Atomics.load(this.table.cells, this.table.cell(entry.slot, QUEUED));
    const pending = total - entry.ownQueued - mark;
    return pending > 0n ? pending : 0n;
  }

  /** The name's queued total, every isolate's together (the `seen` of `queuedIf`). */
  queuedTotal(name: string | Entry): bigint {
    const entry = typeof name === "string" ? this.#entry(name) : this.#touch(name);
    return Atomics.load(this.table.cells, this.table.cell(entry.slot, QUEUED));
  }

  /**
   * `queued`, but only while the name's total is still `seen` — the total a decision was taken
   * on: one atomic step against every isolate, so two isolates cannot both admit on one count
   * (undefined: another isolate queued in between; decide again on the new count).
   */
  queuedIf(name: string, amount: bigint, seen: bigint): Entry | undefined {
    const entry = this.#entry(name);
    const at = this.table.cell(entry.slot, QUEUED);
    if (Atomics.compareExchange(this.table.cells, at, seen, seen + amount) !== seen) return;
    entry.ownQueued += amount;
    return entry;
  }

  /** Credit held now by every isolate's requests of the organization. */
  held(name: string): bigint {
    return Atomics.load(this.table.cells, this.table.cell(this.#entry(name).slot, HELD));
  }

  hold(name: string, amount: bigint): void {
    const entry = this.#entry(name);
    Atomics.add(this.table.cells, this.table.cell(entry.slot, HELD), amount);
    entry.ownHeld += amount;
  }

  release(name: string, amount: bigint): void {
    const entry = this.#entry(name);
    Atomics.sub(this.table.cells, this.table.cell(entry.slot, HELD), amount);
    entry.ownHeld -= amount;
  }

  /**
   * Adds `amount` to the organization's holds if `fits(held)` says the credit left after what
   * is held now (read first, then whatever `fits` reads) allows it; one atomic step against
   * every isolate: a concurrent hold or release makes it read and decide again.
   */
  tryHold(name: string, amount: bigint, fits: (held: bigint) => boolean): boolean {
    const entry = this.#entry(name);
    const at = this.table.cell(entry.slot, HELD);
    const cells = this.table.cells;
    for (;;) {
      const held = Atomics.load(cells, at);
      if (!fits(held)) return false;
      if (Atomics.compareExchange(cells, at, held, held + amount) === held) {
        entry.ownHeld += amount;
        return true;
      }
    }
  }

  /**
   * Unpins the names this isolate has not used for `evictAfterMs` and has nothing pending or
   * held of; `reclaim` (the primary) then frees what no isolate pins. Called every `SWEEP_MS`.
   */
  sweep(reclaim: boolean): void {
    this.#tick++;
    for (const [name, entry] of this.#cache) {
      if (this.#tick - entry.used < this.#idleTicks) continue;
      if (entry.ownQueued !== entry.ownVisible || entry.ownHeld !== 0n) continue;
      this.#cache.delete(name);
      this.table.unpin(entry.slot);
    }
    if (reclaim) this.table.reclaim();
  }

  /** Names this isolate has pinned (tests). */
  get cached(): number {
    return this.#cache.size;
  }

  /** Whether `name` counts in the overflow slot (tests). */
  overflowed(name: string): boolean {
    return this.#entry(name).slot === OVERFLOW_SLOT;
  }

  #touch(entry: Entry): Entry {
    entry.used = this.#tick;
    return entry;
  }

  #entry(name: string): Entry {
    let entry = this.#cache.get(name);
    if (entry === undefined) {
      const slot = this.table.pin(name, this.onOverflow);
      entry = { slot, ownQueued: 0n, ownVisible: 0n, ownHeld: 0n, used: this.#tick };
      this.#cache.set(name, entry);
    } else entry.used = this.#tick;
    return entry;
  }
}
