/**
 * The single sign-on area on PostgreSQL (`../sso_store.ts`): records as `jsonb` beside the
 * columns they are found by. A binding references its provider (foreign key), so a provider
 * still bound cannot be removed, whatever runs concurrently.
 */
import type { Db } from "./connect.ts";
import type { SsoProviderRemoval, SsoStore } from "../sso_store.ts";
import type {
  SsoBindingRecord,
  SsoFlowRecord,
  SsoIdentityRecord,
  SsoProviderRecord,
} from "../sso_records.ts";

const json = (value: unknown) => JSON.stringify(value);
const FOREIGN_KEY_VIOLATION = "23503";

export function pgSsoStore(sql: Db): SsoStore {
  return {
    async createProvider(p) {
      const rows = await sql`
        insert into sovra_sso_providers (id, record) values (${p.id}, ${json(p)}::text::jsonb)
        on conflict do nothing returning id`;
      return rows.length > 0;
    },
    async getProvider(id) {
      const [row] = await sql<{ record: SsoProviderRecord }[]>`
        select record from sovra_sso_providers where id = ${id}`;
      return row?.record;
    },
    async listProviders() {
      const rows = await sql<{ record: SsoProviderRecord }[]>`
        select record from sovra_sso_providers order by id`;
      return rows.map((r) => r.record);
    },
    async removeProvider(id): Promise<SsoProviderRemoval> {
      try {
        return await sql.begin(async (tx) => {
          const [found] = await tx`select id from sovra_sso_providers where id = ${id} for update`;
          if (!found) return "not_found" as const;
          const [bound] = await tx`select 1 from sovra_sso_bindings where provider_id = ${id}`;
          if (bound) return "bound" as const;
          await tx`delete from sovra_sso_providers where id = ${id}`;
          return "removed" as const;
        });
      } catch (error) {
        if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return "bound";
        throw error;
      }
    },
    async getBinding(orgId) {
      const [row] = await sql<{ record: SsoBindingRecord }[]>`
        select record from sovra_sso_bindings where org_id = ${orgId}`;
      return row?.record;
    },
    async setBinding(b) {
      try {
        return await sql.begin(async (tx) => {
          const [previous] = await tx<{ provider_id: string }[]>`
            select provider_id from sovra_sso_bindings where org_id = ${b.org} for update`;
          await tx`
            insert into sovra_sso_bindings (org_id, provider_id, record)
            values (${b.org}, ${b.provider}, ${json(b)}::text::jsonb)
            on conflict (org_id) do update
              set provider_id = excluded.provider_id, record = excluded.record`;
          if (previous && previous.provider_id !== b.provider) {
            await tx`delete from sovra_sso_managed where org_id = ${b.org}`;
          }
          return true;
        });
      } catch (error) {
        if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
        throw error;
      }
    },
    async deleteBinding(orgId) {
      return await sql.begin(async (tx) => {
        const rows = await tx`delete from sovra_sso_bindings where org_id = ${orgId} returning 1`;
        await tx`delete from sovra_sso_managed where org_id = ${orgId}`;
        return rows.length > 0;
      });
    },
    async listBindingsOfProvider(providerId) {
      const rows = await sql<{ record: SsoBindingRecord }[]>`
        select record from sovra_sso_bindings where provider_id = ${providerId} order by org_id`;
      return rows.map((r) => r.record);
    },
    async getIdentity(issuer, subject) {
      const [row] = await sql<{ record: SsoIdentityRecord }[]>`
        select record from sovra_sso_identities where issuer = ${issuer} and subject = ${subject}`;
      return row?.record;
    },
    async createIdentity(i) {
      const rows = await sql`
        insert into sovra_sso_identities (issuer, subject, user_id, record)
        values (${i.issuer}, ${i.subject}, ${i.user}, ${json(i)}::text::jsonb)
        on conflict do nothing returning 1`;
      return rows.length > 0;
    },
    async touchIdentity(issuer, subject, at) {
      await sql`
        update sovra_sso_identities
        set record = jsonb_set(record, '{last_sign_in}', to_jsonb(${at}::text))
        where issuer = ${issuer} and subject = ${subject}`;
    },
    async deleteIdentity(issuer, subject) {
      await sql`delete from sovra_sso_identities where issuer = ${issuer} and subject = ${subject}`;
    },
    async listIdentitiesOfUser(userId) {
      const rows = await sql<{ record: SsoIdentityRecord }[]>`
        select record from sovra_sso_identities where user_id = ${userId}
        order by issuer, subject`;
      return rows.map((r) => r.record);
    },
    async markManaged(m) {
      await sql`
        insert into sovra_sso_managed (org_id, user_id, provider_id)
        values (${m.org}, ${m.user}, ${m.provider})
        on conflict (org_id, user_id) do update set provider_id = excluded.provider_id`;
    },
    async getManaged(orgId, userId) {
      const [row] = await sql<{ provider_id: string }[]>`
        select provider_id from sovra_sso_managed where org_id = ${orgId} and user_id = ${userId}`;
      return row ? { org: orgId, user: userId, provider: row.provider_id } : undefined;
    },
    async unmarkManaged(orgId, userId) {
      await sql`delete from sovra_sso_managed where org_id = ${orgId} and user_id = ${userId}`;
    },
    async createFlow(flow) {
      // Flows live minutes: the expired ones go whenever a new one is written.
      await sql`delete from sovra_sso_flows where expires < now()`;
      await sql`
        insert into sovra_sso_flows (hash, expires, record)
        values (${flow.hash}, ${flow.expires}, ${json(flow)}::text::jsonb)
        on conflict (hash) do update set expires = excluded.expires, record = excluded.record`;
    },
    async getFlow(hash) {
      const [row] = await sql<{ record: SsoFlowRecord }[]>`
        select record from sovra_sso_flows where hash = ${hash}`;
      return row?.record;
    },
    async takeFlow(hash) {
      // One statement: under a race exactly one caller gets the row.
      const [row] = await sql<{ record: SsoFlowRecord }[]>`
        delete from sovra_sso_flows where hash = ${hash} returning record`;
      return row?.record;
    },
  };
}
