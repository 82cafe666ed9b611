/**
 * Keeps this process's lease alive (renewed every third of `leaseMs`) and settles the admission
 * records left by processes whose lease ran out (issue 17 item 3): once at start, then every
 * `leaseMs`. A process killed with requests in flight is thus billed by the next process to
 * start, or by any live one, within about two leases.
 */
import type { AdmissionStore } from "./admission_store.ts";
import { errorMessage, type Logger } from "../log.ts";

export interface AdmissionRecovery {
  /** Resolves after the first lease renewal and recovery pass (start). */
  readonly started: Promise<void>;
  stop(): Promise<void>;
}

export function startAdmissionRecovery(
  store: AdmissionStore,
  instance: string,
  leaseMs: number,
  log: Logger,
  /** Also settle stopped instances' records (false: a `SOVRA_WORKERS` isolate, lease only). */
  settleOthers = true,
): AdmissionRecovery {
  let running: Promise<void> = Promise.resolve();
  let ticks = 0;
  const renew = () =>
    store.renewLease(instance, Date.now() + leaseMs).catch((error) =>
      log.warn("instance lease renewal failed", { reason: errorMessage(error) })
    );
  const recover = () =>
    !settleOthers ? Promise.resolve() : store.recoverAdmissions(instance, Date.now()).then(
      (settled) => {
        if (settled > 0) {
          log.warn("settled requests admitted by a stopped instance (estimated)", { settled });
        }
      },
      (error) => log.warn("admission recovery failed", { reason: errorMessage(error) }),
    );
  const tick = () => {
    ticks++;
    running = running.then(() => ticks % 3 === 0 ? renew().then(recover) : renew());
  };
  running = renew().then(recover);
  const started = running;
  const timer = setInterval(tick, Math.max(1, Math.floor(leaseMs / 3)));
  // Housekeeping must not keep the process (or a test) alive.
  (timer as unknown as { unref?: () => void }).unref?.();
  return {
    started,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
