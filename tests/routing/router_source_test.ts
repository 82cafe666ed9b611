/**
 * The router as a plan hook: `router/<id>` candidates come from the pool only, in decision
 * order; the organization-policy filters decide what the router may choose (a strict-only
 * organization is never routed to a pragmatic pool model) and fail closed.
 */
import assert from "node:assert/strict";
import { Catalog } from "../../src/catalog/catalog.ts";
import type { Model } from "../../src/catalog/schema.ts";
import { GatewayError } from "../../src/errors.ts";
import { planRoutes } from "../../src/routing/plan_routes.ts";
import { RouteMetrics } from "../../src/routing/route_metrics.ts";
import {
  type CandidateFilter,
  NO_ROUTING_HOOKS,
  type RoutingHooks,
} from "../../src/routing/route_plan.ts";
import { routerModelSource } from "../../src/routing/router_source.ts";
import { RoutingPolicyCache } from "../../src/smart_router/policy_cache.ts";
import { RouterPins } from "../../src/smart_router/pins.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { CALLER, chatModel, chatRequest, PROVIDERS } from "./plan_fixtures.ts";

const quality = (m: Model, q: number, sovereignty: Model["sovereignty"] = "strict") =>
  ({ ...m, quality: { overall: q }, sovereignty }) as Model;
const CHEAP = quality(chatModel("acme/cheap", [{ provider: "oa-1", upstream_model: "c" }]), 0.3);
const MID = quality(chatModel("acme/mid", [{ provider: "oa-1", upstream_model: "m" }]), 0.6);
const TOP = quality(
  chatModel("acme/top", [{ provider: "oa-2", upstream_model: "t" }]),
  0.9,
  "pragmatic",
);
const OUTSIDE = quality(chatModel("acme/outside", [{ provider: "oa-1", upstream_model: "o" }]), 1);
for (const [m, p] of [[CHEAP, 1], [MID, 5], [TOP, 20], [OUTSIDE, 0]] as const) {
  m.pricing = { prompt_micro_eur_per_million: p, completion_micro_eur_per_million: p };
}
const CATALOG = new Catalog(PROVIDERS, [CHEAP, MID, TOP, OUTSIDE]);

const strictOnly: CandidateFilter = {
  name: "org-policy",
  exclude: (route) => route.model.sovereignty === "strict" ? undefined : "pragmatic model",
  noneLeft: () => new GatewayError(403, "policy_forbids_model", "strict only"),
};

async function setup(filters: CandidateFilter[] = []) {
  const store = await openKvStore(":memory:");
  const now = "2026-11-24T06:00:00.000Z";
  await store.routingPolicies!.putRoutingPolicy({
    org: CALLER.org,
    id: "best",
    pool: [CHEAP.id, MID.id, TOP.id],
    strategy: "auto",
    threshold: 10,
    created: now,
    updated: now,
  });
  await store.routingPolicies!.putRoutingPolicy({
    org: CALLER.org,
    id: "toponly",
    pool: [TOP.id],
    strategy: "ordered",
    threshold: 5,
    created: now,
    updated: now,
  });
  const policies = new RoutingPolicyCache(store.routingPolicies);
  await policies.load(CALLER.org, "best");
  await policies.load(CALLER.org, "toponly");
  await policies.load(CALLER.org, "missing");
  const hooks: RoutingHooks = {
    ...NO_ROUTING_HOOKS,
    modelSources: [
      routerModelSource({
        policies,
        metrics: new RouteMetrics(),
        pins: new RouterPins(),
        filters: () => hooks.filters,
      }),
    ],
    filters,
  };
  const plan = (model: string) =>
    planRoutes({
      endpoint: "chat",
      request: chatRequest({ model }),
      caller: CALLER,
      catalog: CATALOG,
      model: CHEAP,
    }, hooks);
  return { store, plan };
}

Deno.test("router source — candidates are the pool's routes in decision order, with the decision", async () => {
  const { store, plan } = await setup();
  try {
    const p = plan("router/best");
    assert.deepEqual(p.candidates.map((c) => c.route.model.id), [TOP.id, MID.id, CHEAP.id]);
    assert.equal(p.routing?.policy, "best");
    assert.match(p.routing!.reason, /threshold 10/);
    assert.ok(!p.candidates.some((c) => c.route.model.id === OUTSIDE.id));
    // A plain model is not the router's.
    assert.equal(plan(CHEAP.id).routing, undefined);
    assert.throws(() => plan("router/missing"), (e: GatewayError) => e.code === "model_not_found");
  } finally {
    await store.close();
  }
});

Deno.test("router source — a strict-only organization is never routed to a pragmatic pool model", async () => {
  const { store, plan } = await setup([strictOnly]);
  try {
    const p = plan("router/best");
    // The router chose among allowed models: the best strict one first.
    assert.deepEqual(p.candidates.map((c) => c.route.model.id), [MID.id, CHEAP.id]);
    assert.match(p.routing!.reason, /acme\/mid/);
    // A pool with only pragmatic models: the policy step refuses (fails closed).
    assert.throws(() => plan("router/toponly"), (e: GatewayError) => e.status === 403);
  } finally {
    await store.close();
  }
});
