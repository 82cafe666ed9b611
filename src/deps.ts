/** Everything the request path needs, built once by the composition root. */
import type { Config } from "./config.ts";
import type { Store } from "./state/store.ts";
import type { CatalogHolder } from "./catalog/catalog_holder.ts";
import type { ApiKeyAuthenticator } from "./auth/api_key_authenticator.ts";
import type { AdapterRegistry } from "./providers/adapter.ts";
import type { Settler } from "./billing/settle.ts";
import type { RefusedRows } from "./billing/refused_rows.ts";
import type { RouteMetrics } from "./routing/route_metrics.ts";
import type { Logger } from "./log.ts";
import type { GateState } from "./limits/gate_state.ts";
import type { SharedLimits } from "./limits/shared_limits.ts";
import type { UnsentTally } from "./limits/unsent_tally.ts";
import type { RoutingHooks } from "./routing/route_plan.ts";
import type { Telemetry } from "./telemetry/telemetry.ts";
import type { PolicyCache } from "./policy/policy_cache.ts";
import type { Lifecycle } from "./lifecycle/lifecycle.ts";
import type { RoutingPolicyCache } from "./smart_router/policy_cache.ts";
import type { RouterPins } from "./smart_router/pins.ts";
import type { AlertSender } from "./alerts/alert_sender.ts";
import type { Mailer } from "./mail/mailer.ts";
import type { SpendAlerts } from "./alerts/spend_alerts.ts";

export interface GatewayCounters {
  /** Requests let through because the store failed (rate limit fail-open). */
  gateStoreFailures: number;
}

export interface AppDeps {
  config: Config;
  /** Closes the upstream HTTP client's pool (at shutdown; absent with a test's own fetch). */
  closeUpstream?: () => void;
  store: Store;
  catalog: CatalogHolder;
  auth: ApiKeyAuthenticator;
  adapters: AdapterRegistry;
  settler: Settler;
  /** Rows of requests refused after authentication (coalescing the gate's 429/402 floods). */
  refusedRows: RefusedRows;
  metrics: RouteMetrics;
  /** The routing plan's extension points (guardrail, router, organization policy). */
  routing: RoutingHooks;
  /** Effective organization policies by key, cached ≤ 30 s. */
  policies: PolicyCache;
  /** Routing policies (`router/<id>`), cached per organization. */
  routerPolicies: RoutingPolicyCache;
  /** Router pins (tool loops, sticky end-users), shared through the store when it can. */
  routerPins: RouterPins;
  /** Spend alerts, evaluated on settle, and their delivery (absent: the store has no alert area). */
  alerts?: { spend: SpendAlerts; sender: AlertSender; mailer?: Mailer };
  log: Logger;
  gate: GateState;
  /** The limits every isolate of the process shares (gate counts, transcription slots). */
  limits: SharedLimits;
  /** This instance's rate-bucket increments not yet sent to the store. */
  unsentRequests: UnsentTally;
  counters: GatewayCounters;
  /** This process's id in admission records and its lease (random per start). */
  instance: string;
  /** Metrics and spans: called at request end, attempt end, settle and commit. */
  /** Drain state: readiness and the open streams a drain may cut. */
  lifecycle: Lifecycle;
  telemetry: Telemetry;
  now: () => number;
}
