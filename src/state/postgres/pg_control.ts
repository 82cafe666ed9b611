/**
 * The control area (credit ledger, audit log, organization settings, the dashboard's usage
 * ranges) on PostgreSQL. A grant (or a correction) changes the granted total and writes its
 * ledger row in one transaction; ranges read the rows the settle statement already writes.
 */
import type { Db } from "./connect.ts";
import type { ControlStore } from "../control_store.ts";
import {
  type AuditEntry,
  DAILY_AGGREGATES,
  DEFAULT_ORG_SETTINGS,
  type LedgerEntry,
  type UsageDay,
  zeroUsage,
} from "../account_records.ts";
import type { RequestRecord } from "../records.ts";
import { timeOrderedIdFloor } from "../../util/ids.ts";
import { inContractOrder } from "./record_order.ts";

interface LedgerRow {
  id: string;
  org_id: string;
  created: Date;
  amount_micro_eur: bigint;
  actor: string;
  note: string | null;
  kind: "grant" | "correction";
  corrects: string | null;
}

interface SettingsRow {
  low_balance: bigint | null;
  rpm_ceiling: number | null;
  require_2fa: boolean;
  suspended_at: Date | null;
}

interface AuditRow {
  id: string;
  org_id: string | null;
  created: Date;
  actor: string;
  action: AuditEntry["action"];
  target: string | null;
  detail: AuditEntry["detail"];
}

const ledger = (r: LedgerRow): LedgerEntry => ({
  id: r.id,
  org: r.org_id,
  created: r.created.toISOString(),
  amount_micro_eur: Number(r.amount_micro_eur),
  actor: r.actor,
  note: r.note,
  ...(r.kind === "correction" ? { kind: r.kind, corrects: r.corrects } : {}),
});

const audit = (r: AuditRow): AuditEntry => ({
  id: r.id,
  created: r.created.toISOString(),
  org: r.org_id,
  actor: r.actor,
  action: r.action,
  target: r.target,
  detail: r.detail,
});

export function pgControlStore(sql: Db): ControlStore {
  return {
    async grantCredits(entry) {
      return await sql.begin(async (tx) => {
        await tx`
          insert into sovra_ledger (id, org_id, created, amount_micro_eur, actor, note)
          values (${entry.id}, ${entry.org}, ${entry.created}, ${BigInt(entry.amount_micro_eur)},
            ${entry.actor}, ${entry.note})`;
        const [row] = await tx<{ balance: bigint }[]>`
          insert into sovra_credits (org_id, granted_micro_eur)
          values (${entry.org}, ${BigInt(entry.amount_micro_eur)})
          on conflict (org_id) do update
            set granted_micro_eur = sovra_credits.granted_micro_eur + excluded.granted_micro_eur
          returning granted_micro_eur - spent_micro_eur as balance`;
        return row!.balance;
      });
    },
    async correctCredits(entry) {
      return await sql.begin(async (tx) => {
        // The row lock orders this against grants and settles of the same organization.
        const [row] = await tx<{ granted: bigint; spent: bigint }[]>`
          select granted_micro_eur as granted, spent_micro_eur as spent from sovra_credits
          where org_id = ${entry.org} for update`;
        const granted = (row?.granted ?? 0n) + BigInt(entry.amount_micro_eur);
        if (granted < 0n) return undefined;
        if (entry.corrects) {
          // The grant's row lock orders corrections of the same grant.
          const [grant] = await tx<{ amount: bigint }[]>`
            select amount_micro_eur as amount from sovra_ledger
            where id = ${entry.corrects} and org_id = ${entry.org} and kind = 'grant' for update`;
          if (!grant) return undefined;
          const [sum] = await tx<{ net: bigint }[]>`
            select coalesce(sum(amount_micro_eur), 0)::bigint as net from sovra_ledger
            where org_id = ${entry.org} and kind = 'correction' and corrects = ${entry.corrects}`;
          const net = grant.amount + sum!.net + BigInt(entry.amount_micro_eur);
          if (net < 0n || net > grant.amount) return undefined;
        }
        await tx`
          insert into sovra_ledger (id, org_id, created, amount_micro_eur, actor, note, kind,
            corrects)
          values (${entry.id}, ${entry.org}, ${entry.created}, ${BigInt(entry.amount_micro_eur)},
            ${entry.actor}, ${entry.note}, 'correction', ${entry.corrects ?? null})`;
        await tx`
          insert into sovra_credits (org_id, granted_micro_eur) values (${entry.org}, ${granted})
          on conflict (org_id) do update set granted_micro_eur = excluded.granted_micro_eur`;
        return granted - (row?.spent ?? 0n);
      });
    },
    async listLedger(orgId, limit) {
      return (await sql<LedgerRow[]>`
        select * from sovra_ledger where org_id = ${orgId} order by id desc limit ${limit}`)
        .map(ledger);
    },
    async appendAudit(entry) {
      await sql`
        insert into sovra_audit (id, org_id, created, actor, action, target, detail)
        values (${entry.id}, ${entry.org}, ${entry.created}, ${entry.actor}, ${entry.action},
          ${entry.target}, ${sql.json(entry.detail as never)})
        on conflict (id) do nothing`;
    },
    async listAudit(orgId, limit) {
      const rows = orgId === null
        ? await sql<AuditRow[]>`
          select * from sovra_audit where org_id is null order by id desc limit ${limit}`
        : await sql<AuditRow[]>`
          select * from sovra_audit where org_id = ${orgId} order by id desc limit ${limit}`;
      return rows.map(audit);
    },
    async getOrgSettings(orgId) {
      const [row] = await sql<SettingsRow[]>`
        select low_balance_micro_eur as low_balance, rpm_ceiling, require_2fa, suspended_at
        from sovra_org_settings where org_id = ${orgId}`;
      if (!row) return { ...DEFAULT_ORG_SETTINGS };
      return {
        low_balance_micro_eur: row.low_balance === null ? null : Number(row.low_balance),
        rpm_ceiling: row.rpm_ceiling,
        require_2fa: row.require_2fa,
        suspended_at: row.suspended_at === null ? null : row.suspended_at.toISOString(),
      };
    },
    async setOrgSettings(orgId, settings) {
      const low = settings.low_balance_micro_eur === null
        ? null
        : BigInt(settings.low_balance_micro_eur);
      // `suspended_at` is not written here: only setOrgSuspension changes it.
      await sql`
        insert into sovra_org_settings (org_id, low_balance_micro_eur, rpm_ceiling, require_2fa)
        values (${orgId}, ${low}, ${settings.rpm_ceiling}, ${settings.require_2fa})
        on conflict (org_id) do update set low_balance_micro_eur = excluded.low_balance_micro_eur,
          rpm_ceiling = excluded.rpm_ceiling, require_2fa = excluded.require_2fa`;
    },
    async setOrgSuspension(orgId, suspendedAt) {
      await sql`
        insert into sovra_org_settings (org_id, suspended_at) values (${orgId}, ${suspendedAt})
        on conflict (org_id) do update set suspended_at = excluded.suspended_at`;
    },
    async requestsBetween(orgId, from, to, limit) {
      const rows = await sql<{ record: RequestRecord }[]>`
        select record from sovra_requests
        where org_id = ${orgId} and id >= ${timeOrderedIdFloor("req_", from.getTime())}
          and id < ${timeOrderedIdFloor("req_", to.getTime())}
        order by id desc limit ${limit}`;
      return rows.map((r) => inContractOrder(r.record));
    },
    async usageDays(orgId, fromDay, toDay) {
      const rows = await sql<Record<string, bigint | string>[]>`
        select to_char(day, 'YYYY-MM-DD') as day, ${sql(DAILY_AGGREGATES)}
        from sovra_usage_daily
        where org_id = ${orgId} and day between ${fromDay}::date and ${toDay}::date
        order by day`;
      return rows.map((r) => {
        const day: UsageDay = { day: String(r.day), ...zeroUsage() };
        for (const field of DAILY_AGGREGATES) day[field] = Number(r[field]);
        return day;
      });
    },
  };
}
