/**
 * Deletes request metadata past the retention period and old rate buckets, once at start and
 * then hourly. `expireIn` alone is not relied on: sums clear it and local expiry lags.
 */
import type { Store } from "./store.ts";
import { errorMessage, type Logger } from "../log.ts";
import { minuteOf } from "./minute.ts";

export function runRetentionCleanup(store: Store, retentionDays: number, now = Date.now()) {
  return store.cleanup(new Date(now - retentionDays * 86_400_000), minuteOf(now) - 2);
}

export function startRetentionCleanup(
  store: Store,
  retentionDays: number,
  log: Logger,
): { stop(): void } {
  const run = () =>
    runRetentionCleanup(store, retentionDays).then(
      (deleted) => {
        if (deleted.requests > 0 || deleted.rateBuckets > 0) log.info("retention cleanup", deleted);
      },
      (error) => log.warn("retention cleanup failed", { reason: errorMessage(error) }),
    );
  const first = setTimeout(run, 5_000);
  const timer = setInterval(run, 3_600_000);
  // Housekeeping must not keep the process (or a test) alive.
  (first as unknown as { unref?: () => void }).unref?.();
  (timer as unknown as { unref?: () => void }).unref?.();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
