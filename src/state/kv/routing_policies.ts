/** The routing-policy area on Deno KV (`routing_policy_store.ts`): one entry per policy. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { RoutingPolicyRecord, RoutingPolicyStore } from "../routing_policy_store.ts";

export function kvRoutingPolicyStore(kv: Deno.Kv): RoutingPolicyStore {
  return {
    async putRoutingPolicy(record) {
      await withLockRetry(() => kv.set(kvKeys.routingPolicy(record.org, record.id), record));
    },
    async getRoutingPolicy(org, id) {
      const entry = await kv.get<RoutingPolicyRecord>(kvKeys.routingPolicy(org, id));
      return entry.value ?? undefined;
    },
    async listRoutingPolicies(org) {
      const out: RoutingPolicyRecord[] = [];
      const prefix = kvKeys.routingPolicyPrefix(org);
      for await (const entry of kv.list<RoutingPolicyRecord>({ prefix })) out.push(entry.value);
      return out;
    },
    deleteRoutingPolicy(org, id) {
      return withLockRetry(async () => {
        const key = kvKeys.routingPolicy(org, id);
        const entry = await kv.get(key);
        if (entry.value === null) return false;
        return (await kv.atomic().check(entry).delete(key).commit()).ok;
      });
    },
  };
}
