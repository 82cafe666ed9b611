/**
 * Keeps this process's lease alive (renewed every third of `leaseMs`) and settles the admission
 * records left by processes whose lease ran out (issue 17 item 3): once at start, then every
 * `leaseMs`. A process killed with requests in flight is thus billed by the next process to
 * start, or by any live one, within about two leases.
 *
 * Renewals and recovery passes run on chains of their own: a long or stuck recovery pass never
 * delays a renewal (a delayed renewal lets another instance judge this live one dead and settle
 * its requests a second time on KV). `leased` resolves after the first renewal, so the gateway
 * can commit its lease before it accepts a request.
 */
import type { AdmissionStore } from "./admission_store.ts";
import { errorMessage, type Logger } from "../log.ts";

export interface AdmissionRecovery {
  /** Resolves after the first lease renewal (committed, or failed and logged). */
  readonly leased: Promise<void>;
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
  let renewing: Promise<void> = renew();
  const leased = renewing;
  // The first pass only once this instance's own lease is committed.
  let recovering: Promise<void> = leased.then(recover);
  const started = recovering;
  let ticks = 0;
  const tick = () => {
    ticks++;
    renewing = renewing.then(renew);
    if (ticks % 3 === 0) recovering = recovering.then(recover);
  };
  const timer = setInterval(tick, Math.max(1, Math.floor(leaseMs / 3)));
  // Housekeeping must not keep the process (or a test) alive.
  (timer as unknown as { unref?: () => void }).unref?.();
  return {
    leased,
    started,
    async stop() {
      clearInterval(timer);
      await Promise.all([renewing, recovering]);
    },
  };
}
