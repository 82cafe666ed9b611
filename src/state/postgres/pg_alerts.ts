/** The spend-alert area on PostgreSQL (`alert_store.ts`): settings, claimed crossings, deliveries. */
import type { Db } from "./connect.ts";
import {
  type AlertDelivery,
  type AlertSettings,
  type AlertStore,
  CLAIM_TTL_MS,
} from "../alert_store.ts";

export function pgAlertStore(sql: Db): AlertStore {
  return {
    async getAlertSettings(org) {
      const [row] = await sql<{ record: AlertSettings }[]>`
        select record from sovra_alert_settings where org_id = ${org}`;
      return row?.record;
    },
    async putAlertSettings(settings) {
      await sql`
        insert into sovra_alert_settings (org_id, record)
        values (${settings.org}, ${sql.json(settings as never)})
        on conflict (org_id) do update set record = excluded.record`;
    },
    async claimAlert(org, episode, at) {
      // Claims older than their time to live go with the next claim (no sweeper of their own).
      await sql`delete from sovra_alert_claims where created < ${new Date(at - CLAIM_TTL_MS)}`;
      const rows = await sql`
        insert into sovra_alert_claims (org_id, episode, created)
        values (${org}, ${episode}, ${new Date(at)})
        on conflict do nothing returning episode`;
      return rows.length === 1;
    },
    async putDelivery(delivery) {
      await sql`
        insert into sovra_alert_deliveries (id, org_id, status, record)
        values (${delivery.id}, ${delivery.org}, ${delivery.status},
          ${sql.json(delivery as never)})
        on conflict (id) do update set status = excluded.status, record = excluded.record`;
    },
    async listDeliveries(org, limit) {
      const rows = await sql<{ record: AlertDelivery }[]>`
        select record from sovra_alert_deliveries where org_id = ${org}
        order by id desc limit ${limit}`;
      return rows.map((r) => r.record);
    },
    async pendingDeliveries(limit) {
      const rows = await sql<{ record: AlertDelivery }[]>`
        select record from sovra_alert_deliveries where status = 'pending'
        order by id limit ${limit}`;
      return rows.map((r) => r.record);
    },
  };
}
