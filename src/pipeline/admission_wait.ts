/**
 * A whole (non-stream) answer's wait for what makes it durable (the durability guarantee: no
 * answer before it is): its admission record, or the settle that took the record's place in the
 * same commit (`Settler.settleAdmitted`). Bounded like the stream path's: it counts against the
 * upstream idle limit (`SOVRA_STREAM_IDLE_MS`) and ends when the client leaves. A commit that
 * hangs past the limit is the store's failure: the spec's 500 gateway error, naming the store,
 * never the provider's (the route that answered keeps its success).
 */
import { GatewayError } from "../errors.ts";
import type { UpstreamAdmission } from "../limits/admission.ts";
import { IdleWatchdog } from "./idle_watchdog.ts";
import type { PipelineDeps } from "./pipeline_deps.ts";
import type { AdmittedSettle } from "../billing/settle.ts";
import { type RequestSettlement, settleFailure } from "./settle_request.ts";

/** The 500 of an admission commit that did not complete within the limit. */
export const admissionStalled = () =>
  new GatewayError(
    500,
    "internal_error",
    "The gateway's store did not commit the request's admission in time.",
  );

/** The 500 of a settle the store did not take in its admission's commit. */
export const settleNotCommitted = () =>
  new GatewayError(500, "internal_error", "The gateway's store did not commit the request.");

/**
 * Whether a whole answer's settle may ride its admission's commit (`settleInAdmission`): where
 * a commit that hangs is released by the store breaker (two store deadlines and a sweep tick:
 * the answer then goes out, as it does after an admission's) before the idle limit answers the
 * store's 500. A 500 while a commit carrying the request's billed settle may still land would
 * bill an answer the client never got; the admission's own wait has no such case.
 */
export function settlesInAdmission(config: PipelineDeps["config"]): boolean {
  return config.storeDeadlineMs !== undefined &&
    config.streamIdleMs >= 3 * config.storeDeadlineMs;
}

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
  // `durable()` never rejects (a store failure is logged and the request goes on).
  return bounded(admission.durable(), limitMs, signal);
}

/**
 * Resolves once the commit carrying the request's settle lets its answer go (`answerable`);
 * rejects with `settleNotCommitted()` when the store did not take it, `admissionStalled()`
 * after `limitMs`, or the signal's reason when the client leaves first.
 */
export function untilCommitted(
  answerable: Promise<void>,
  limitMs: number,
  signal: AbortSignal,
): Promise<void> {
  const committed = answerable.catch(() => Promise.reject(settleNotCommitted()));
  if (signal.aborted) {
    committed.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return bounded(committed, limitMs, signal);
}

function bounded(wait: Promise<void>, limitMs: number, signal: AbortSignal): Promise<void> {
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
    void wait.then(() => {
      done();
      resolve();
    }, fail);
  });
}

/**
 * A whole answer settled in its admission's commit goes out once that commit lets it
 * (`untilCommitted`). A commit the store refused, or that did not come in time, is the store's
 * 500 with the row of a failure (cost 0), and the settle it carried is not retried. A client
 * that left meanwhile leaves the settle as it is: the answer was complete, and its commit is on
 * its way (billed as a stream the client leaves is for what was generated).
 */
export async function answerAfterCommit(
  deps: Pick<PipelineDeps, "config" | "settler" | "log">,
  settle: AdmittedSettle,
  failure: Omit<RequestSettlement, "status" | "consumed" | "finish">,
  signal: AbortSignal,
): Promise<void> {
  try {
    await untilCommitted(settle.answerable, deps.config.streamIdleMs, signal);
  } catch (error) {
    if (signal.aborted && error === signal.reason) settle.answered();
    else {
      settle.abandoned();
      settleFailure(deps, failure, error, signal);
    }
    throw error;
  }
  settle.answered();
}
