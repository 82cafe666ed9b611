/**
 * The per-instance limit on concurrent transcriptions (spec: 4 per instance; wait up to 10 s
 * for a slot, then 503 `transcriptions_busy` with `Retry-After: 10`). The count is the
 * process's, shared by every `SOVRA_WORKERS` isolate (`limits/shared_semaphore.ts`): a slot
 * freed in any isolate goes to a waiter in any isolate. Within an isolate waiters are served
 * in arrival order, and a slot freed here passes straight to the oldest waiter here.
 */
import { GatewayError } from "../../errors.ts";
import { SharedSemaphore } from "../../limits/shared_semaphore.ts";

/** Frees the slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

export interface TranscriptionSlots {
  /**
   * Resolves once a slot is held. Rejects with a 503 `GatewayError` after `waitMs`, or with
   * the signal's reason when `signal` aborts first (the client left while waiting).
   */
  acquire(signal?: AbortSignal): Promise<ReleaseSlot>;
  /** Slots this isolate's requests hold, and its requests waiting (metrics: summed per process). */
  readonly active: number;
  readonly waiting: number;
}

export interface TranscriptionSlotsOptions {
  max?: number;
  waitMs?: number;
  retryAfterSeconds?: number;
  /** The process's count (absent: this isolate's own, of `max`). */
  shared?: SharedSemaphore;
}

interface Waiter {
  grant: () => void;
}

/** A waiting isolate looks again at least this often (a notice it missed is no stall). */
const RECHECK_MS = 250;

export function createTranscriptionSlots(
  options: TranscriptionSlotsOptions = {},
): TranscriptionSlots {
  const count = options.shared ?? SharedSemaphore.local(options.max ?? 4);
  const waitMs = options.waitMs ?? 10_000;
  const retryAfter = String(options.retryAfterSeconds ?? 10);
  let active = 0;
  const queue: Waiter[] = [];
  let watching = false;

  const releaser = (): ReleaseSlot => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      if (next !== undefined) return next.grant();
      active--;
      count.release();
    };
  };

  /** While requests wait here: take each slot another isolate frees. */
  const watch = async () => {
    if (watching) return;
    watching = true;
    try {
      while (queue.length > 0) {
        const seen = count.releases();
        if (count.tryAcquire()) {
          active++;
          const next = queue.shift();
          if (next) next.grant();
          else {
            active--;
            count.release();
          }
          continue;
        }
        await count.released(seen, RECHECK_MS);
      }
    } finally {
      watching = false;
    }
  };

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    acquire(signal?: AbortSignal): Promise<ReleaseSlot> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (queue.length === 0 && count.tryAcquire()) {
        active++;
        return Promise.resolve(releaser());
      }
      return new Promise<ReleaseSlot>((resolve, reject) => {
        const leave = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
        };
        const onAbort = () => {
          leave();
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          grant: () => {
            leave();
            resolve(releaser());
          },
        };
        const timer = setTimeout(() => {
          leave();
          reject(busy(retryAfter));
        }, waitMs);
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
        void watch();
      });
    },
  };
}

function busy(retryAfter: string): GatewayError {
  return new GatewayError(
    503,
    "transcriptions_busy",
    `All transcription slots are busy; retry after ${retryAfter} seconds.`,
    { headers: { "Retry-After": retryAfter } },
  );
}
