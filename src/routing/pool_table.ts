/**
 * A routing policy's pool resolved against one catalog: the catalog model of each pool id (or
 * none) and the live-metrics key of each model's primary route. Built once per (policy,
 * catalog) pair and kept while both objects live: the policy cache hands out the same object
 * until it reloads it, and a catalog reload is a new `Catalog`, so an edit of either builds a
 * new table. Saves each router request the catalog scans and key strings it would repeat.
 */
import type { Catalog } from "../catalog/catalog.ts";
import type { Model } from "../catalog/schema.ts";
import { RouteMetrics } from "./route_metrics.ts";
import type { RoutingPolicy } from "../smart_router/policy.ts";

export interface PoolTable {
  /** The catalog model of each pool id. */
  model(id: string): Model | undefined;
  /** The pool's first active chat model (what a router request is decoded for). */
  firstActiveChat: Model | undefined;
  /** The metrics key of a pool model's primary route; undefined: it has no route. */
  metricsKey(model: Model): string | undefined;
}

const tables = new WeakMap<RoutingPolicy, { catalog: Catalog; table: PoolTable }>();

export function poolTable(policy: RoutingPolicy, catalog: Catalog): PoolTable {
  const hit = tables.get(policy);
  if (hit && hit.catalog === catalog) return hit.table;
  const table = buildPoolTable(policy, catalog);
  tables.set(policy, { catalog, table });
  return table;
}

function buildPoolTable(policy: RoutingPolicy, catalog: Catalog): PoolTable {
  const models = new Map<string, Model>();
  const keys = new Map<Model, string | undefined>();
  for (const id of policy.pool) {
    const model = catalog.models.find((m) => m.id === id);
    if (!model) continue;
    models.set(id, model);
    const primary = catalog.routesOf(model)[0];
    keys.set(
      model,
      primary ? RouteMetrics.key(primary.providerId, primary.route.upstream_model) : undefined,
    );
  }
  const firstActiveChat = policy.pool.map((id) => models.get(id))
    .find((m) => m?.kind === "chat" && m.state === "active");
  return {
    model: (id) => models.get(id),
    firstActiveChat,
    metricsKey: (model) => keys.get(model),
  };
}
