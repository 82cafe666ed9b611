/**
 * Per-key requests per minute over a sliding window of two 1-minute buckets:
 * estimate = previous × (1 − elapsed fraction of this minute) + current.
 * Increments not yet sent to the store are counted from memory, so concurrent requests of
 * one instance cannot slip past the limit between read and write.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed again (when refused). */
  retryAfterSeconds: number;
}

export function minuteOf(nowMs: number): number {
  return Math.floor(nowMs / 60_000);
}

export function decideRate(
  rpm: number,
  current: number,
  previous: number,
  nowMs: number,
): RateDecision {
  const elapsed = (nowMs % 60_000) / 60_000;
  const estimate = previous * (1 - elapsed) + current;
  if (estimate + 1 <= rpm) return { allowed: true, retryAfterSeconds: 0 };
  const secondsLeft = 60 - (nowMs % 60_000) / 1000;
  let wait: number;
  if (current + 1 > rpm) {
    // After the rollover this minute's count becomes the decaying previous bucket:
    // solve current × (1 − e) + 1 ≤ rpm for the next minute's elapsed fraction e.
    wait = secondsLeft + Math.max(0, 1 - (rpm - 1) / current) * 60;
  } else if (previous === 0) {
    wait = secondsLeft;
  } else {
    // The previous bucket's weight decays linearly: solve previous × (1 − e') + current + 1 ≤ rpm.
    const target = 1 - (rpm - 1 - current) / previous;
    wait = Math.max(0, (target - elapsed) * 60);
  }
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait)) };
}

/**
 * This instance's increments per key and minute, as two monotonic counters: admitted, and
 * sent to the store. A store read issued when `sent` was S includes exactly the first S of
 * them (the KV handle is serial), so the true count is `read + (admitted now − S)` — which
 * also covers requests admitted while the read was in flight.
 */
export class PendingCounts {
  #counts = new Map<string, { minute: number; admitted: number; sent: number }>();

  #entry(keyId: string, minute: number) {
    const id = `${keyId}:${minute}`;
    let entry = this.#counts.get(id);
    if (!entry) {
      if (this.#counts.size > 10_000) this.#prune(minute);
      entry = { minute, admitted: 0, sent: 0 };
      this.#counts.set(id, entry);
    }
    return entry;
  }

  /** Call right before issuing the store read; the result goes to `unsentSince`. */
  sentMark(keyId: string, minute: number): number {
    return this.#counts.get(`${keyId}:${minute}`)?.sent ?? 0;
  }

  /** Increments the store read (issued at `mark`) cannot contain. */
  unsentSince(keyId: string, minute: number, mark: number): number {
    const entry = this.#counts.get(`${keyId}:${minute}`);
    return entry ? entry.admitted - mark : 0;
  }

  /** Counts an admitted request; the returned function marks it sent to the store. */
  admit(keyId: string, minute: number): () => void {
    const entry = this.#entry(keyId, minute);
    entry.admitted++;
    let sent = false;
    return () => {
      if (sent) return;
      sent = true;
      entry.sent++;
    };
  }

  #prune(minute: number): void {
    for (const [id, entry] of this.#counts) {
      if (entry.minute < minute - 1 && entry.sent === entry.admitted) this.#counts.delete(id);
    }
  }
}
