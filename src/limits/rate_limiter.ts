/**
 * Per-key requests per minute over a sliding window of two 1-minute buckets:
 * estimate = previous × (1 − elapsed fraction of this minute) + current.
 * The counts come from `GateState` (a recent store read plus this instance's own increments).
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed again (when refused). */
  retryAfterSeconds: number;
  /** Requests still allowed now, this one included when allowed (it is counted). */
  remaining: number;
  /** Seconds until both buckets are empty again (the window's full reset). */
  resetSeconds: number;
}

export function decideRate(
  rpm: number,
  current: number,
  previous: number,
  nowMs: number,
): RateDecision {
  const elapsed = (nowMs % 60_000) / 60_000;
  const estimate = previous * (1 - elapsed) + current;
  const secondsLeft = 60 - (nowMs % 60_000) / 1000;
  if (estimate + 1 <= rpm) {
    // This request joins this minute's bucket, which weighs on the next minute too.
    const remaining = Math.max(0, Math.floor(rpm - estimate - 1));
    return {
      allowed: true,
      retryAfterSeconds: 0,
      remaining,
      resetSeconds: fullReset(secondsLeft, true),
    };
  }
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
  return {
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil(wait)),
    remaining: 0,
    resetSeconds: fullReset(secondsLeft, current > 0),
  };
}

/** Seconds until the window is empty: the previous bucket stops counting at rollover. */
function fullReset(secondsLeft: number, currentCounts: boolean): number {
  return Math.ceil(currentCounts ? secondsLeft + 60 : secondsLeft);
}
