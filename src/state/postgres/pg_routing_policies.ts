/**
 * The routing-policy area on PostgreSQL (`../routing_policy_store.ts`): one row per
 * (org, id), the record as `json` (kept as written, so it reads back field for field).
 */
import type { Db } from "./connect.ts";
import type { RoutingPolicyRecord, RoutingPolicyStore } from "../routing_policy_store.ts";

export function pgRoutingPolicyStore(sql: Db): RoutingPolicyStore {
  return {
    async putRoutingPolicy(record) {
      // One statement: a reader sees the old record or the new one.
      await sql`
        insert into sovra_routing_policies (org_id, id, record)
        values (${record.org}, ${record.id}, ${JSON.stringify(record)}::text::json)
        on conflict (org_id, id) do update set record = excluded.record`;
    },
    async getRoutingPolicy(org, id) {
      const [row] = await sql<{ record: RoutingPolicyRecord }[]>`
        select record from sovra_routing_policies where org_id = ${org} and id = ${id}`;
      return row?.record;
    },
    async listRoutingPolicies(org) {
      const rows = await sql<{ record: RoutingPolicyRecord }[]>`
        select record from sovra_routing_policies where org_id = ${org} order by id`;
      return rows.map((r) => r.record);
    },
    async deleteRoutingPolicy(org, id) {
      const rows = await sql`
        delete from sovra_routing_policies where org_id = ${org} and id = ${id} returning id`;
      return rows.length > 0;
    },
  };
}
