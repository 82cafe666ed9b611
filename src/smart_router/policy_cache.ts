/**
 * Routing policies as the request path reads them: from the store's routing-policy area,
 * cached per (organization, id) for `ttlMs` (10 s by default, so an edit or a deletion takes
 * effect within 30 s as the contract requires). A missing policy is cached too (briefly), so
 * unknown `router/<id>` requests cost no store read each.
 */
import type { RoutingPolicyStore } from "../state/routing_policy_store.ts";
import { fromRecord } from "./policy_record.ts";
import type { RoutingPolicy } from "./policy.ts";

export const POLICY_CACHE_MS = 10_000;

interface Entry {
  policy: RoutingPolicy | undefined;
  expires: number;
}

export class RoutingPolicyCache {
  /** Organization → policy id → entry (two lookups: no joined key string per request). */
  readonly #entries = new Map<string, Map<string, Entry>>();
  #size = 0;

  constructor(
    readonly area: RoutingPolicyStore | undefined,
    readonly ttlMs = POLICY_CACHE_MS,
    readonly now: () => number = Date.now,
  ) {}

  /** The policy, read from the store when not cached or stale; undefined when none. */
  async load(org: string, id: string): Promise<RoutingPolicy | undefined> {
    const hit = this.#entries.get(org)?.get(id);
    if (hit && hit.expires > this.now()) return hit.policy;
    if (!this.area) return undefined;
    const record = await this.area.getRoutingPolicy(org, id);
    const policy = record ? fromRecord(record) : undefined;
    if (this.#size > 10_000) {
      this.#entries.clear();
      this.#size = 0;
    }
    let policies = this.#entries.get(org);
    if (!policies) this.#entries.set(org, policies = new Map());
    if (!policies.has(id)) this.#size++;
    policies.set(id, { policy, expires: this.now() + this.ttlMs });
    return policy;
  }

  /** The cached policy, if `load` put one there (no store read). */
  peek(org: string, id: string): RoutingPolicy | undefined {
    return this.#entries.get(org)?.get(id)?.policy;
  }
}
