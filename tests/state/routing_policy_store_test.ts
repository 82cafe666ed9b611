/**
 * The routing-policy area's semantics (`src/state/routing_policy_store.ts`), on Deno KV.
 * `routingPolicyContract` takes any backend's area, so a second backend runs the same checks.
 */
import assert from "node:assert/strict";
import type {
  RoutingPolicyRecord,
  RoutingPolicyStore,
} from "../../src/state/routing_policy_store.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { closing } from "../helpers/dispose.ts";

function record(org: string, id: string, extra: Partial<RoutingPolicyRecord> = {}) {
  return {
    org,
    id,
    pool: ["a/one", "b/two"],
    strategy: "auto" as const,
    threshold: 5,
    created: "2026-11-24T05:00:00.000Z",
    updated: "2026-11-24T05:00:00.000Z",
    ...extra,
  };
}

export async function routingPolicyContract(area: RoutingPolicyStore): Promise<void> {
  assert.equal(await area.getRoutingPolicy("org_a", "support"), undefined);
  await area.putRoutingPolicy(record("org_a", "support"));
  await area.putRoutingPolicy(record("org_a", "bulk", { strategy: "ordered" }));
  await area.putRoutingPolicy(record("org_b", "support", { threshold: 9 }));
  // Same id in two organizations: two policies.
  assert.equal((await area.getRoutingPolicy("org_a", "support"))?.threshold, 5);
  assert.equal((await area.getRoutingPolicy("org_b", "support"))?.threshold, 9);
  // Listing: this organization's only, sorted by id.
  assert.deepEqual((await area.listRoutingPolicies("org_a")).map((p) => p.id), ["bulk", "support"]);
  assert.deepEqual(await area.listRoutingPolicies("org_c"), []);
  // Put replaces the whole record.
  const replaced = record("org_a", "support", {
    pool: ["c/three"],
    threshold: 2,
    weights: { latency: 1, ttft: 0, throughput: 0, error_rate: 1, price: 0 },
    sticky_seconds: 600,
    updated: "2026-11-24T06:00:00.000Z",
  });
  await area.putRoutingPolicy(replaced);
  assert.deepEqual(await area.getRoutingPolicy("org_a", "support"), replaced);
  // Delete says whether there was one; the other organization's policy stays.
  assert.equal(await area.deleteRoutingPolicy("org_a", "support"), true);
  assert.equal(await area.deleteRoutingPolicy("org_a", "support"), false);
  assert.equal(await area.getRoutingPolicy("org_a", "support"), undefined);
  assert.equal((await area.getRoutingPolicy("org_b", "support"))?.threshold, 9);
}

Deno.test("routing-policy area — Deno KV keeps the contract", async () => {
  await using store = closing(await openKvStore(":memory:"));
  assert.ok(store.routingPolicies);
  await routingPolicyContract(store.routingPolicies);
});

Deno.test("routing-policy area — PostgreSQL keeps the contract", async () => {
  await using cluster = await startPostgres();
  await using store = closing(
    await openPgStore(await cluster.database(), { spillPath: undefined }),
  );
  await routingPolicyContract(store.routingPolicies);
  // Read back field for field, in the order written (json, not jsonb).
  const written = {
    org: "org_o",
    id: "order",
    name: "Order kept",
    pool: ["z/last", "a/first"],
    strategy: "metrics" as const,
    threshold: 7,
    created: "2026-11-24T05:00:00.000Z",
    updated: "2026-11-24T05:00:00.000Z",
  };
  await store.routingPolicies.putRoutingPolicy(written);
  const read = await store.routingPolicies.getRoutingPolicy("org_o", "order");
  assert.equal(JSON.stringify(read), JSON.stringify(written));
});
