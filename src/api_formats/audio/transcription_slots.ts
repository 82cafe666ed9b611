/**
 * The per-instance limit on concurrent transcriptions (spec: 4 per instance; wait up to 10 s
 * for a slot, then 503 `transcriptions_busy` with `Retry-After: 10`). Waiters are served in
 * arrival order; a freed slot passes straight to the oldest waiter.
 */
import { GatewayError } from "../../errors.ts";

/** Frees the slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

export interface TranscriptionSlots {
  /**
   * Resolves once a slot is held. Rejects with a 503 `GatewayError` after `waitMs`, or with
   * the signal's reason when `signal` aborts first (the client left while waiting).
   */
  acquire(signal?: AbortSignal): Promise<ReleaseSlot>;
  readonly active: number;
  readonly waiting: number;
}

export interface TranscriptionSlotsOptions {
  max?: number;
  waitMs?: number;
  retryAfterSeconds?: number;
}

interface Waiter {
  grant: () => void;
}

export function createTranscriptionSlots(
  options: TranscriptionSlotsOptions = {},
): TranscriptionSlots {
  const max = options.max ?? 4;
  const waitMs = options.waitMs ?? 10_000;
  const retryAfter = String(options.retryAfterSeconds ?? 10);
  let active = 0;
  const queue: Waiter[] = [];

  const releaser = (): ReleaseSlot => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      if (next === undefined) active--;
      else next.grant();
    };
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
      if (active < max) {
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
