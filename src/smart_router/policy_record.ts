/** Conversion between a validated `RoutingPolicy` and the store's `RoutingPolicyRecord`. */
import type { RoutingPolicyRecord } from "../state/routing_policy_store.ts";
import { RoutingPolicy } from "./policy.ts";

export function toRecord(org: string, policy: RoutingPolicy, now: Date): RoutingPolicyRecord {
  const created = policy.created ? new Date(policy.created).toISOString() : now.toISOString();
  return {
    org,
    id: policy.id,
    ...(policy.name === undefined ? {} : { name: policy.name }),
    pool: [...policy.pool],
    strategy: policy.strategy,
    threshold: policy.threshold,
    ...(policy.weights === undefined ? {} : { weights: { ...policy.weights } }),
    ...(policy.sticky_seconds === undefined ? {} : { sticky_seconds: policy.sticky_seconds }),
    created,
    updated: now.toISOString(),
  };
}

/** A stored record as a policy; a record that no longer validates is treated as absent. */
export function fromRecord(record: RoutingPolicyRecord): RoutingPolicy | undefined {
  const { org: _org, created, updated, ...rest } = record;
  const parsed = RoutingPolicy.safeParse({
    ...rest,
    created: Date.parse(created),
    updated: Date.parse(updated),
  });
  return parsed.success ? parsed.data : undefined;
}

/** The policy as the CLI and the dashboard show it. */
export function routingPolicyView(record: RoutingPolicyRecord): Record<string, unknown> {
  return { ...record, model: `router/${record.id}` };
}
