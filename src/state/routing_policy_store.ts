/**
 * The routing-policy area of the state: customers' smart-router policies, per organization.
 * A backend keeps these semantics (the Deno KV one is `kv_routing_policy_store.ts`; the
 * PostgreSQL one follows the same contract):
 *
 * - A policy is identified by (org, id); ids are unique within an organization, and the same
 *   id in two organizations names two unrelated policies.
 * - `putRoutingPolicy` creates or replaces the whole record atomically; a reader sees either
 *   the old or the new record, never a mix. Validation (slug, pool against the catalog) is the
 *   caller's: the store keeps what it is given.
 * - `listRoutingPolicies` returns the organization's policies sorted by id.
 * - `deleteRoutingPolicy` returns whether a record was there.
 * - Records hold no prompt or user data: ids, model ids, numbers.
 */
export interface RoutingPolicyRecord {
  org: string;
  id: string;
  name?: string;
  pool: string[];
  strategy: "auto" | "metrics" | "ordered";
  threshold: number;
  weights?: {
    latency: number;
    ttft: number;
    throughput: number;
    error_rate: number;
    price: number;
  };
  sticky_seconds?: number;
  /** ISO times. */
  created: string;
  updated: string;
}

export interface RoutingPolicyStore {
  putRoutingPolicy(record: RoutingPolicyRecord): Promise<void>;
  getRoutingPolicy(org: string, id: string): Promise<RoutingPolicyRecord | undefined>;
  listRoutingPolicies(org: string): Promise<RoutingPolicyRecord[]>;
  deleteRoutingPolicy(org: string, id: string): Promise<boolean>;
}
