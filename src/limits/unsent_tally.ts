/**
 * This instance's increments per name (a key's minute, an organization's debits), as two
 * monotonic totals: queued, and sent to the store. A store read issued when `sent` was S
 * contains exactly the first S of them (the KV handle is serial), so the true value is
 * `read + (queued now − S)` — which also covers increments queued while the read was in
 * flight or after it.
 */
interface Totals {
  queued: bigint;
  sent: bigint;
  touched: number;
}

export class UnsentTally {
  #totals = new Map<string, Totals>();

  /** Call right before issuing a store read; pass the result to `unsentSince`. */
  sentMark(name: string): bigint {
    return this.#totals.get(name)?.sent ?? 0n;
  }

  /** What a store read issued at `mark` cannot contain. */
  unsentSince(name: string, mark: bigint): bigint {
    const totals = this.#totals.get(name);
    return totals ? totals.queued - mark : 0n;
  }

  /** Counts an amount queued for the store; the returned function marks it sent. */
  queue(name: string, amount: bigint, now: number): () => void {
    let totals = this.#totals.get(name);
    if (!totals) {
      if (this.#totals.size > 50_000) this.#prune(now);
      totals = { queued: 0n, sent: 0n, touched: now };
      this.#totals.set(name, totals);
    }
    totals.queued += amount;
    totals.touched = now;
    const entry = totals;
    let sent = false;
    return () => {
      if (sent) return;
      sent = true;
      entry.sent += amount;
    };
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
