/**
 * This instance's increments per name (a key's minute, an organization's debits), as two
 * monotonic totals: queued, and sent to the store. A store read issued when `sent` was S
 * contains exactly the first S of them (the KV handle is serial), so the true value is
 * `read + (queued now − S)` — which also covers increments queued while the read was in
 * flight or after it.
 *
 * The totals are whole numbers kept as JavaScript numbers while exact (`whole.ts`: bigints past
 * 2^53), so the hot path converts nothing to a bigint; `sentMark` and `unsentSince` give
 * bigints for callers that compute with the store's.
 */
import { addWhole, subtractWhole, type Whole, whole } from "./whole.ts";
import type { Entry, SharedCounters } from "./shared_counters.ts";

/**
 * Marks a queued amount sent (call it as `onSent`); `settled` once its write's promise settled.
 * With other isolates counting (`SharedCounters`), the amount becomes visible to them once both
 * happened: the write is committed (or given up on, or, spilled, replayed), so a read on any
 * store connection contains it.
 */
export type QueueMark = (() => void) & { settled(): void };

interface Totals {
  queued: Whole;
  sent: Whole;
  touched: number;
}

export class UnsentTally {
  #totals = new Map<string, Totals>();

  /** `shared`: the process's counters, where other isolates see this one's amounts. */
  constructor(private readonly shared?: SharedCounters) {}

  /** Call right before issuing a store read; pass the result to `unsentSince`. */
  sentMark(name: string): bigint {
    return BigInt(this.sentCount(name));
  }

  /** What a store read issued at `mark` cannot contain. */
  unsentSince(name: string, mark: bigint): bigint {
    const totals = this.#totals.get(name);
    return totals ? BigInt(totals.queued) - mark : 0n;
  }

  /** `sentMark` as a number while exact. */
  sentCount(name: string): Whole {
    return this.#totals.get(name)?.sent ?? 0;
  }

  /** `unsentSince` of a `sentCount` mark, as a number while exact. */
  unsentCount(name: string, mark: Whole): Whole {
    const totals = this.#totals.get(name);
    return totals ? subtractWhole(totals.queued, mark) : 0;
  }

  /**
   * Counts an amount queued for the store; the returned function marks it sent. `sharedName`:
   * the name the other isolates count it under (an API key id, an organization id).
   */
  queue(name: string, amount: bigint | number, now: number, sharedName?: string): QueueMark {
    const shared = sharedName === undefined ? undefined : this.shared;
    const big = shared ? BigInt(whole(amount)) : 0n;
    return this.#counted(name, amount, now, shared?.queued(sharedName!, big), big);
  }

  /**
   * `queue`, unless another isolate queued under `sharedName` since the decision's count
   * (`seen`, a `queuedTotal`): then nothing is counted and the caller decides again. Without
   * other isolates (or without `seen`) it always counts.
   */
  queueIfUnchanged(
    name: string,
    amount: number,
    now: number,
    sharedName: string,
    seen: bigint | undefined,
  ): QueueMark | undefined {
    if (!this.shared || seen === undefined) return this.queue(name, amount, now, sharedName);
    const big = BigInt(amount);
    const place = this.shared.queuedIf(sharedName, big, seen);
    return place && this.#counted(name, amount, now, place, big);
  }

  #counted(
    name: string,
    amount: bigint | number,
    now: number,
    place: Entry | undefined,
    big: bigint,
  ): QueueMark {
    let totals = this.#totals.get(name);
    if (!totals) {
      if (this.#totals.size > 50_000) this.#prune(now);
      totals = { queued: 0, sent: 0, touched: now };
      this.#totals.set(name, totals);
    }
    const counted = whole(amount);
    totals.queued = addWhole(totals.queued, counted);
    totals.touched = now;
    const entry = totals;
    let sent = false;
    let settled = false;
    const shared = this.shared;
    const mark = (() => {
      if (sent) return;
      sent = true;
      entry.sent = addWhole(entry.sent, counted);
      if (settled && place) shared!.visible(place, big);
    }) as QueueMark;
    mark.settled = () => {
      if (settled) return;
      settled = true;
      if (sent && place) shared!.visible(place, big);
    };
    return mark;
  }

  /** Entries fully sent and untouched for 3 minutes: every read taken since contains them. */
  #prune(now: number): void {
    for (const [name, totals] of this.#totals) {
      if (totals.sent === totals.queued && now - totals.touched > 180_000) {
        this.#totals.delete(name);
      }
    }
  }
}
