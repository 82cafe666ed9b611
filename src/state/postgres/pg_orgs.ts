/**
 * Organizations and credits on PostgreSQL: credits are two only-incremented counters (granted,
 * spent) in `sovra_credits`, so a top-up and a debit never overwrite each other.
 */
import type { Db } from "./connect.ts";
import type { OrgStore } from "../store.ts";
import type { OrgView } from "../records.ts";

interface OrgRow {
  id: string;
  name: string;
  created: Date;
  granted: bigint;
  spent: bigint;
}

export function pgOrgStore(sql: Db): OrgStore {
  const getOrg = async (orgId: string): Promise<OrgView | undefined> => {
    const [row] = await sql<OrgRow[]>`
      select o.id, o.name, o.created, coalesce(c.granted_micro_eur, 0) as granted,
        coalesce(c.spent_micro_eur, 0) as spent
      from sovra_orgs o left join sovra_credits c on c.org_id = o.id
      where o.id = ${orgId}`;
    return row ? orgView(row) : undefined;
  };
  return {
    async createOrg(org, creditsMicroEur) {
      await sql.begin(async (tx) => {
        const inserted = await tx`
          insert into sovra_orgs (id, name, created) values (${org.id}, ${org.name}, ${org.created})
          on conflict (id) do nothing returning id`;
        if (inserted.length === 0) throw new Error(`Organization '${org.id}' already exists.`);
        await tx`
          insert into sovra_credits (org_id, granted_micro_eur) values (${org.id}, ${creditsMicroEur})
          on conflict (org_id) do update
            set granted_micro_eur = sovra_credits.granted_micro_eur + excluded.granted_micro_eur`;
      });
      return (await getOrg(org.id))!;
    },
    getOrg,
    async listOrgs() {
      const rows = await sql<OrgRow[]>`
        select o.id, o.name, o.created, coalesce(c.granted_micro_eur, 0) as granted,
          coalesce(c.spent_micro_eur, 0) as spent
        from sovra_orgs o left join sovra_credits c on c.org_id = o.id
        order by o.id`;
      return rows.map(orgView);
    },
    async topUp(orgId, microEur) {
      const [row] = await sql<{ balance: bigint }[]>`
        insert into sovra_credits (org_id, granted_micro_eur) values (${orgId}, ${microEur})
        on conflict (org_id) do update
          set granted_micro_eur = sovra_credits.granted_micro_eur + excluded.granted_micro_eur
        returning granted_micro_eur - spent_micro_eur as balance`;
      return row!.balance;
    },
  };
}

function orgView(row: OrgRow): OrgView {
  return {
    id: row.id,
    name: row.name,
    created: row.created.toISOString(),
    balance_micro_eur: Number(row.granted - row.spent),
    granted_micro_eur: Number(row.granted),
    spent_micro_eur: Number(row.spent),
  };
}
