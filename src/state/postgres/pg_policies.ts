/** Organization and key policies on PostgreSQL (JSON documents), each change with its audit row. */
import type { TransactionSql } from "postgres";
import type { Db } from "./connect.ts";
import { sequentialId } from "../../util/ids.ts";
import type { KeyPolicy, OrgPolicy, PolicyAuditEntry, PolicyStore } from "../policy_store.ts";

export function pgPolicyStore(sql: Db): PolicyStore {
  return {
    async getOrgPolicy(orgId) {
      const [row] = await sql<{ policy: OrgPolicy }[]>`
        select policy from sovra_org_policies where org_id = ${orgId}`;
      return row?.policy;
    },
    async putOrgPolicy(orgId, policy, actor) {
      return await sql.begin(async (tx) => {
        const [row] = await tx<{ policy: OrgPolicy }[]>`
          select policy from sovra_org_policies where org_id = ${orgId} for update`;
        await tx`
          insert into sovra_org_policies (org_id, policy) values (${orgId}, ${
          tx.json(policy as never)
        })
          on conflict (org_id) do update set policy = excluded.policy`;
        return await audit(tx, { org: orgId, key_id: null, actor }, row?.policy ?? null, policy);
      });
    },
    async getKeyPolicy(keyId) {
      const [row] = await sql<{ policy: KeyPolicy }[]>`
        select policy from sovra_key_policies where key_id = ${keyId}`;
      return row?.policy;
    },
    async putKeyPolicy(orgId, keyId, policy, actor) {
      return await sql.begin(async (tx) => {
        const [row] = await tx<{ policy: KeyPolicy }[]>`
          select policy from sovra_key_policies where key_id = ${keyId} for update`;
        if (policy === null) {
          await tx`delete from sovra_key_policies where key_id = ${keyId}`;
        } else {
          await tx`
            insert into sovra_key_policies (key_id, org_id, policy)
            values (${keyId}, ${orgId}, ${tx.json(policy as never)})
            on conflict (key_id) do update set policy = excluded.policy`;
        }
        return await audit(tx, { org: orgId, key_id: keyId, actor }, row?.policy ?? null, policy);
      });
    },
    async listPolicyAudit(orgId, limit) {
      const rows = await sql<{ entry: PolicyAuditEntry }[]>`
        select entry from sovra_policy_audit where org_id = ${orgId}
        order by id desc limit ${limit}`;
      return rows.map((r) => r.entry);
    },
  };
}

async function audit(
  tx: TransactionSql<{ bigint: bigint }>,
  who: Pick<PolicyAuditEntry, "org" | "key_id" | "actor">,
  before: OrgPolicy | KeyPolicy | null,
  after: OrgPolicy | KeyPolicy | null,
): Promise<PolicyAuditEntry> {
  const entry: PolicyAuditEntry = {
    id: sequentialId("pa_"),
    at: new Date().toISOString(),
    ...who,
    before,
    after,
  };
  await tx`
    insert into sovra_policy_audit (id, org_id, entry)
    values (${entry.id}, ${entry.org}, ${tx.json(entry as never)})`;
  return entry;
}
