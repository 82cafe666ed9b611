/**
 * Keeps this process's lease alive (renewed every third of `leaseMs`) and settles the admission
 * records left by processes whose lease ran out: once at start, then every
 * `leaseMs`. A process killed with requests in flight is thus billed by the next process to
 * start, or by any live one, within about two leases.
 *
 * Renewals and recovery passes run on chains of their own: a long or stuck recovery pass never
 * delays a renewal (a delayed renewal lets another instance judge this live one dead and settle
 * its requests a second time on KV). `leased` resolves after the first renewal, so the gateway
 * can commit its lease before it accepts a request.
 *
 * A lease that ran out while the store was away tells nothing: no instance could renew then,
 * and after the store is back the live ones renew within a third of a lease. So a process judges
 * others dead only once its own renewals have succeeded for a whole lease without a failure in
 * between (after an outage, a lock on the KV file, a stall of its own): a live instance is never
 * billed from its estimates for an outage. A renewal that does not answer within a third of the
 * lease counts as failed and does not hold up the next one. Where an instance is still taken for
 * dead (a partition of its own, a stall longer than the lease), its real settles later replace
 * the estimates by request id (`MeteringStore.settle`).
 */
import type { AdmissionStore } from "./admission_store.ts";
import { errorMessage, type Logger } from "../log.ts";
import { withDeadline } from "./deadline.ts";

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
  const period = Math.max(1, Math.floor(leaseMs / 3));
  /** When this process last failed to renew; −∞: never (its first pass may recover at once). */
  let failedAt = -Infinity;
  let renewed = false;
  const renew = () =>
    withDeadline(store.renewLease(instance, Date.now() + leaseMs), period).then(
      () => {
        renewed = true;
      },
      (error) => {
        renewed = false;
        failedAt = Date.now();
        log.warn("instance lease renewal failed", { reason: errorMessage(error) });
      },
    );
  // Others could renew for a whole lease since this process's store last failed it.
  const others = () => renewed && Date.now() - failedAt >= leaseMs;
  const recover = () =>
    !settleOthers || !others()
      ? Promise.resolve()
      : store.recoverAdmissions(instance, Date.now()).then(
        (settled) => {
          if (settled > 0) {
            log.warn("settled requests admitted by a stopped instance (estimated)", { settled });
          }
        },
        (error) => {
          failedAt = Date.now();
          log.warn("admission recovery failed", { reason: errorMessage(error) });
        },
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
  const timer = setInterval(tick, period);
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
