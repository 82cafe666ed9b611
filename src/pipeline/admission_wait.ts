/**
 * A whole (non-stream) answer's wait for its admission record (the durability guarantee: no answer
 * before the record is durable), bounded like the stream path's: it counts against the upstream
 * idle limit (`SOVRA_STREAM_IDLE_MS`) and ends when the client leaves. A commit that hangs past
 * the limit is the store's failure: the spec's 500 gateway error, naming the store, never the
 * provider's (the route that answered keeps its success).
 */
import { GatewayError } from "../errors.ts";
import type { UpstreamAdmission } from "../limits/admission.ts";
import { IdleWatchdog } from "./idle_watchdog.ts";

/** The 500 of an admission commit that did not complete within the limit. */
export const admissionStalled = () =>
  new GatewayError(
    500,
    "internal_error",
    "The gateway's store did not commit the request's admission in time.",
  );

/**
 * Resolves once the admission is durable; rejects with `admissionStalled()` after `limitMs`
 * (plus at most one sweep tick), or with the signal's reason when the client leaves first.
 */
export function untilAdmitted(
  admission: Pick<UpstreamAdmission, "durable" | "isDurable" | "hurry"> | undefined,
  limitMs: number,
  signal: AbortSignal,
): Promise<void> {
  if (!admission || admission.isDurable()) return Promise.resolve();
  if (signal.aborted) return Promise.reject(signal.reason);
  // A deferred admission (a route that usually answers later) commits now: the answer is here.
  admission.hurry();
  return new Promise<void>((resolve, reject) => {
    // The limit rides on the stream watchdog's shared sweep: no timer per waiting request.
    const watchdog = new IdleWatchdog(limitMs, () => fail(admissionStalled()));
    const done = () => {
      watchdog.stop();
      signal.removeEventListener("abort", onAbort);
    };
    const fail = (error: unknown) => {
      done();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    watchdog.begin();
    signal.addEventListener("abort", onAbort, { once: true });
    // `durable()` never rejects (a store failure is logged and the request goes on).
    void admission.durable().then(() => {
      done();
      resolve();
    });
  });
}
