/**
 * SQLite's "database is locked": another process (the admin CLI) holds the file for a moment.
 * Such operations are retried with a bounded, jittered backoff; any other error is thrown.
 */
import { retry, type RetryOptions } from "../util/async.ts";

export { delay } from "../util/async.ts";

export function isLockError(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

/** 5–15 ms after the first failure, doubling, at most 0.5–1.5 s. */
const LOCK_BACKOFF: Omit<RetryOptions, "maxAttempts"> = {
  retryable: isLockError,
  minTimeout: 15,
  maxTimeout: 1500,
  jitter: 2 / 3,
};

/** Runs `op` (told its attempt number) until it succeeds, fails otherwise, or tries run out. */
export function withLockRetry<T>(
  op: (attempt: number) => Promise<T>,
  tries = 12,
): Promise<T> {
  return retry(op, { ...LOCK_BACKOFF, maxAttempts: tries });
}
