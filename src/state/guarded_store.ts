/**
 * The store as the request path sees it: every call the path makes runs under the breaker's
 * deadline and circuit (`store_breaker.ts`) — key lookups (and the organization's RPM ceiling read
 * with them, `compose_deps.ts`), policy and routing-policy reads,
 * router pins, the gate's read, and the wait for a request's admission write (or for the settle
 * that took its place, `settleAdmitted`). The settle is
 * not on the path (it is written after the answer; the backends keep what they cannot write:
 * a spill file, a commit that lands once the lock is gone). Everything else passes through.
 * While the breaker is open `away()` says so (the caches and the gate then serve what they hold
 * without calling), router pins are not looked up at all (a request without its pin is routed
 * afresh), and `/healthz` says `degraded`.
 */
import type { Store, StoreHealth } from "./store.ts";
import type { RequestRecord } from "./records.ts";
import { type StoreBreaker, StoreUnavailable } from "./store_breaker.ts";

export interface BackendSignals {
  /** A write the backend keeps found the store away (it tells the breaker). */
  onWriteFailure?(listener: (error: unknown) => void): void;
  /** A write reached the store (an open breaker closes). */
  onWriteSuccess?(listener: () => void): void;
  /** The store is taken for away: drop what waits on it (a pool's queued queries). */
  unavailable?(): void;
  /** The store answered a probe again: clear what the outage left (health, retry backoffs). */
  recovered?(): void;
  /** Whether an error means the store is away, not that it refused the data (default: yes). */
  isOutage?(error: unknown): boolean;
  /** An error worth one immediate retry of a read (a pooled connection the server closed). */
  retryable?(error: unknown): boolean;
}

export function guardStore<S extends Store & BackendSignals>(store: S, breaker: StoreBreaker): S {
  const retry = store.retryable ? (error: unknown) => store.retryable!(error) : undefined;
  const read = <T>(op: () => Promise<T>) => breaker.call(op, retry);
  // A call whose caller does without its answer: none while the store is away.
  const optional = <T>(op: () => Promise<T>) =>
    breaker.open
      ? Promise.reject<T>(new StoreUnavailable("The store is unavailable (circuit open)."))
      : read(op);
  store.onWriteFailure?.((error) => breaker.failure(error));
  store.onWriteSuccess?.(() => breaker.success());
  breaker.onOpened(() => store.unavailable?.());
  breaker.onRecovered(() => store.recovered?.());
  const policies = store.routingPolicies;
  const pins = store.routerPins;
  return {
    ...store,
    findApiKeyByHash: (hash) => read(() => store.findApiKeyByHash(hash)),
    getOrgPolicy: (org) => read(() => store.getOrgPolicy(org)),
    getKeyPolicy: (key) => read(() => store.getKeyPolicy(key)),
    readGate: (keyId, orgId, minute, budgetPeriodId) =>
      read(() => store.readGate(keyId, orgId, minute, budgetPeriodId)),
    readKeySpend: (keyId, budgetPeriodId) => read(() => store.readKeySpend(keyId, budgetPeriodId)),
    countRequest: (keyId, minute, onSent, admission, deferrable) =>
      breaker.wait(store.countRequest(keyId, minute, onSent, admission, deferrable)),
    // The answer waits for this write as for an admission's; its settler for the write itself.
    ...(store.settleAdmitted
      ? {
        settleAdmitted: (record: RequestRecord, onSent: () => void) => {
          const settle = store.settleAdmitted!(record, onSent);
          return settle && { written: settle.written, answerable: breaker.wait(settle.written) };
        },
      }
      : {}),
    away: () => breaker.open,
    health(): StoreHealth {
      const inner = store.health?.() ?? { backend: "kv", reachable: true };
      return { ...inner, reachable: inner.reachable && !breaker.open };
    },
    async close() {
      breaker.close();
      await store.close();
    },
    ...(policies
      ? {
        routingPolicies: {
          ...policies,
          getRoutingPolicy: (org: string, id: string) =>
            read(() => policies.getRoutingPolicy(org, id)),
          listRoutingPolicies: (org: string) => read(() => policies.listRoutingPolicies(org)),
        },
      }
      : {}),
    ...(pins
      ? {
        routerPins: {
          getRouterPins: (keys: readonly string[], now: number) =>
            optional(() => pins.getRouterPins(keys, now)),
          putRouterPins: (list: Parameters<typeof pins.putRouterPins>[0]) =>
            optional(() => pins.putRouterPins(list)),
        },
      }
      : {}),
  };
}
