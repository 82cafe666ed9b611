/**
 * What the request pipeline needs from the composition root, and nothing more (`AppDeps`
 * satisfies it): the catalog, the adapters, the routing hooks, live metrics, the settler, the
 * router's policies and pins, and the log. The dashboard or an evaluation tool can call the pipeline without the HTTP app.
 */
import type { CatalogHolder } from "../catalog/catalog_holder.ts";
import type { Settler } from "../billing/settle.ts";
import type { Logger } from "../log.ts";
import type { AdapterRegistry } from "../providers/adapter.ts";
import type { RouteMetrics } from "../routing/route_metrics.ts";
import type { RoutingHooks } from "../routing/route_plan.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import type { Lifecycle } from "../lifecycle/lifecycle.ts";
import type { RoutingPolicyCache } from "../smart_router/policy_cache.ts";
import type { RouterPins } from "../smart_router/pins.ts";

export interface PipelineDeps {
  /**
   * `streamCheckpointMs` absent: streams leave no checkpoints; `storeDeadlineMs` absent: no
   * settle rides its admission's commit (tools outside the app).
   */
  config: { streamIdleMs: number; streamCheckpointMs?: number; storeDeadlineMs?: number };
  catalog: CatalogHolder;
  adapters: AdapterRegistry;
  routing: RoutingHooks;
  metrics: RouteMetrics;
  settler: Settler;
  /** The organizations' routing policies (`router/<id>` targets) and the router's pins. */
  routerPolicies: RoutingPolicyCache;
  routerPins: RouterPins;
  log: Logger;
  /** Metrics and spans (absent outside the HTTP app). */
  telemetry?: Telemetry;
  /** Open streams a drain may cut (absent outside the HTTP app). */
  lifecycle?: Lifecycle;
}
