/**
 * The interfaces callers see instead of `Deno.Kv`, one per area, so a second backend (for
 * example PostgreSQL for multi-instance EU deployments) implements the same areas beside
 * `kv/` without touching callers. `Store` composes every area; callers that need one area
 * may take just that interface.
 */
import type {
  AdmissionRecord,
  ApiKeyRecord,
  GateSnapshot,
  OrgRecord,
  OrgView,
  RequestRecord,
} from "./records.ts";
import type { AdmissionStore } from "./admission_store.ts";
import type { PolicyStore } from "./policy_store.ts";
import type { RoutingPolicyStore } from "./routing_policy_store.ts";
import type { RouterPinStore } from "./router_pin_store.ts";
import type { AlertStore } from "./alert_store.ts";
import type { BudgetPeriod } from "../util/budget_period.ts";

export interface NewApiKey {
  id: string;
  org: string;
  name: string | null;
  rpm: number;
  hash: string;
  prefix: string;
  expires_at?: string | null;
  rotated_from?: string | null;
  budget_micro_eur?: number | null;
  budget_period?: BudgetPeriod | null;
}

/** What `updateApiKey` changes: each field given is replaced, the others kept. */
export interface ApiKeyChange {
  expires_at?: string | null;
  rotated_to?: string | null;
  budget_micro_eur?: number | null;
  budget_period?: BudgetPeriod | null;
}

/** Organizations and their credits (admin CLI, dashboard). */
export interface OrgStore {
  createOrg(org: OrgRecord, creditsMicroEur: bigint): Promise<OrgView>;
  getOrg(orgId: string): Promise<OrgView | undefined>;
  listOrgs(): Promise<OrgView[]>;
  topUp(orgId: string, microEur: bigint): Promise<bigint>;
}

/** API keys: issued and revoked by the control plane, looked up (cached) on the hot path. */
export interface ApiKeyStore {
  createApiKey(key: NewApiKey): Promise<ApiKeyRecord>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** One key by id (the control plane: rotation, updates), or undefined. */
  getApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(orgId: string): Promise<ApiKeyRecord[]>;
  revokeApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Changes a key's settings (expiry, successor); undefined when no such key. Instances learn
   * of it as of a revocation (`onKeyRevoked`, where the backend tells), else within the key
   * cache's expiry.
   */
  updateApiKey(keyId: string, change: ApiKeyChange): Promise<ApiKeyRecord | undefined>;
  /**
   * Calls `listener` with the id of each key any instance revokes from now on, where the
   * backend can tell its instances (PostgreSQL: LISTEN/NOTIFY). A hint for the key cache only:
   * revocation within `SOVRA_KEY_CACHE_SECONDS` never depends on it.
   */
  onKeyRevoked?(listener: (keyId: string) => void): Promise<void>;
}

/** The hot path: one read before a request (gate), one group-committed write after (settle). */
export interface MeteringStore {
  /**
   * The key's two rate buckets, the organization's balance and, with `budgetPeriodId`
   * (`util/budget_period.ts`), the key's spend in that period: one read.
   */
  readGate(
    keyId: string,
    orgId: string,
    minute: number,
    budgetPeriodId?: string,
  ): Promise<GateSnapshot>;
  /** The key's spend in one budget period (the dashboard's spend bar, the alerts). */
  readKeySpend(keyId: string, budgetPeriodId: string): Promise<bigint>;
  /**
   * Counts a request in a rate bucket, with its admission record when it is about to call a
   * provider (one atomic commit); resolves when durable. `onSent` runs once a read issued
   * afterwards is sure to include the increment (until then callers count it from memory).
   * A backend with transactions fires it at commit acknowledgement, not on send.
   */
  countRequest(
    keyId: string,
    minute: number,
    onSent?: () => void,
    admission?: AdmissionRecord,
    /**
     * The admission may ride with the next paced commit instead of forcing one at once: its
     * route answers later than that commit lands (`limits/admission.ts`). An answer that comes
     * first calls `hurryWrites`.
     */
    deferrable?: boolean,
  ): Promise<void>;
  /** Something waits for a queued write: start the next commit without the interval. */
  hurryWrites(): void;
  /**
   * Replaces a request's admission record by a later estimate (a long stream's completion
   * tokens so far), so a process killed mid-stream is billed for what it streamed up to the last
   * checkpoint. Rides the next paced commit; resolves when durable (a failure is only logged:
   * the previous estimate stays).
   */
  checkpointAdmission(admission: AdmissionRecord): Promise<void>;
  /**
   * Debit + metadata + daily aggregates in one atomic commit, deleting the request's admission
   * record; resolves when durable. `onSent` as for `countRequest`.
   */
  settle(record: RequestRecord, onSent?: () => void): Promise<void>;
  /**
   * The settle of a request whose admission write (`countRequest` with its record) is still
   * queued, not yet sent: the settle takes the admission record's place in that write, beside
   * its rate increment, and the write commits without the interval (an answer waits for it).
   * The admission's own promise settles with it. Undefined when the admission was sent
   * already (nothing done: settle as usual). `onSent` as for `settle`.
   */
  settleAdmitted?(record: RequestRecord, onSent: () => void): AdmittedSettle | undefined;
}

/** A settle written in its request's admission commit (`MeteringStore.settleAdmitted`). */
export interface AdmittedSettle {
  /** Resolves when durable (or, where the backend says so, kept for a replay); rejects when not written. */
  written: Promise<void>;
  /**
   * What the answer waits for: `written`, or less while the store is taken for away (the
   * request path's breaker then waits for no write, `StoreBreaker.wait`).
   */
  answerable: Promise<void>;
}

/** Request metadata and daily aggregates: listing, usage, retention. */
export interface RequestLogStore {
  listRequests(orgId: string, limit: number): Promise<RequestRecord[]>;
  dailyUsage(orgId: string, day: string): Promise<Record<string, number>>;
  /** Deletes request metadata older than `before` and rate buckets older than `minute`. */
  cleanup(before: Date, beforeMinute: number): Promise<{ requests: number; rateBuckets: number }>;
}

/** Every area of one backend, with its lifecycle. */
export interface Store
  extends OrgStore, ApiKeyStore, MeteringStore, RequestLogStore, PolicyStore, AdmissionStore {
  /**
   * The routing-policy area (`routing_policy_store.ts`); absent on a backend that has none yet
   * (then `router/<id>` models are unknown and the `routing` commands say so).
   */
  readonly routingPolicies?: RoutingPolicyStore;
  /** The router-pin area (`router_pin_store.ts`); absent: pins stay per instance. */
  readonly routerPins?: RouterPinStore;
  /** The spend-alert area (`alert_store.ts`); absent: no alerts are evaluated or sent. */
  readonly alerts?: AlertStore;
  /** Resolves once every queued write is durable (tests, shutdown). */
  flushed(): Promise<void>;
  /**
   * True while the store is taken for away (its circuit is open, `guarded_store.ts`): a
   * request-path caller with something to serve (a cached key, the last gate snapshot) serves it
   * without calling. Absent: never.
   */
  away?(): boolean;
  /** The backend's own state for /healthz and logs (optional: a local KV file has none). */
  health?(): StoreHealth;
  close(): Promise<void>;
}

export interface StoreHealth {
  backend: string;
  /** False while writes cannot reach the database (they are kept and retried). */
  reachable: boolean;
  [detail: string]: string | number | boolean;
}

/** Told of every group commit: how many writes it carried and how long it took (metrics). */
export type CommitObserver = (batchSize: number, ms: number) => void;
