/**
 * Waiting and trying again, shaped like Deno std's `@std/async` (`delay`, `retry`), which this
 * project cannot import (no JSR): one small module instead of a copy in each caller.
 */

/** Resolves after `ms`; with a `signal`, rejects with its reason when it aborts first. */
export function delay(ms: number, options: { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}

export interface RetryOptions {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Whether a failure is worth another attempt; any other is thrown at once. */
  retryable: (error: unknown) => boolean;
  /** The wait before the second attempt, in ms; each later wait is `multiplier` times longer. */
  minTimeout: number;
  /** The longest wait, in ms. */
  maxTimeout: number;
  /** Default 2. */
  multiplier?: number;
  /**
   * 0 … 1: how much of each wait is random (std's "full jitter" at 1): the wait is drawn from
   * `[(1 - jitter) × w, w]`. Default 1.
   */
  jitter?: number;
}

/**
 * Runs `op` (told its attempt number, from 0) until it resolves, fails with an error that is
 * not `retryable`, or `maxAttempts` ran out (then the last error is thrown).
 */
export async function retry<T>(
  op: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await op(attempt);
    } catch (error) {
      if (attempt + 1 >= options.maxAttempts || !options.retryable(error)) throw error;
      await delay(backoff(attempt, options));
    }
  }
}

/** The wait after the `attempt`th failure (std's exponential backoff with jitter). */
export function backoff(attempt: number, options: RetryOptions): number {
  const { minTimeout, maxTimeout, multiplier = 2, jitter = 1 } = options;
  const wait = Math.min(maxTimeout, minTimeout * multiplier ** attempt);
  return (1 - jitter * Math.random()) * wait;
}
