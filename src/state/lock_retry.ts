/**
 * SQLite's "database is locked": another process (the admin CLI) holds the file for a moment.
 * Such operations are retried with a bounded, jittered backoff; any other error is thrown.
 */
export function isLockError(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `op` (told its attempt number) until it succeeds, fails otherwise, or tries run out. */
export async function withLockRetry<T>(
  op: (attempt: number) => Promise<T>,
  tries = 12,
): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await op(attempt);
    } catch (error) {
      if (attempt + 1 >= tries || !isLockError(error)) throw error;
      await delay(Math.min(1000, 10 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
}
