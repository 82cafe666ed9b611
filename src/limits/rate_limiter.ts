/**
 * Per-key requests per minute over a sliding window of two 1-minute buckets:
 * estimate = previous × (1 − elapsed fraction of this minute) + current.
 * Increments not yet durable in the store are counted from memory, so concurrent requests of
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
  if (current + 1 > rpm || previous === 0) {
    // Only the next minute's rollover can make room.
    wait = secondsLeft;
  } else {
    // The previous bucket's weight decays linearly: solve previous × (1 − e') + current + 1 ≤ rpm.
    const target = 1 - (rpm - 1 - current) / previous;
    wait = Math.max(0, (target - elapsed) * 60);
  }
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait)) };
}

/** In-memory increments that were admitted but are not yet durable, per key and minute. */
export class PendingCounts {
  #counts = new Map<string, number>();

  get(keyId: string, minute: number): number {
    return this.#counts.get(`${keyId}:${minute}`) ?? 0;
  }

  add(keyId: string, minute: number): () => void {
    const id = `${keyId}:${minute}`;
    this.#counts.set(id, (this.#counts.get(id) ?? 0) + 1);
    return () => {
      const left = (this.#counts.get(id) ?? 1) - 1;
      if (left <= 0) this.#counts.delete(id);
      else this.#counts.set(id, left);
    };
  }
}
