/** Export and import of the whole state on PostgreSQL (see ../transfer.ts for the format). */
import type { AlertSettings } from "../alert_store.ts";
import type { Db } from "./connect.ts";
import type { TransactionSql } from "postgres";
import { type AuditEntry, legacyEmailVerified, type Role, zeroUsage } from "../account_records.ts";
import type { RoutingPolicyRecord } from "../routing_policy_store.ts";
import {
  ssoBindingLine,
  ssoIdentityLine,
  ssoManagedLine,
  ssoProviderLine,
} from "../sso_transfer.ts";
import type { SsoBindingRecord, SsoIdentityRecord, SsoProviderRecord } from "../sso_records.ts";

type Tx = TransactionSql<{ bigint: bigint }>;
import type { RequestRecord } from "../records.ts";
import { keyRecord, type KeyRow } from "./pg_api_keys.ts";
import type { KeyPolicy, OrgPolicy, PolicyAuditEntry } from "../policy_store.ts";
import {
  alertSettingsLine,
  alertSettingsOf,
  apiKeyLine,
  apiKeyRecord,
  auditLine,
  ledgerLine,
  membershipLine,
  orgSettings,
  orgSettingsLine,
  policyAuditEntry,
  policyAuditLine,
  policyInOrder,
  requestLine,
  requestRecord,
  type StateLine,
  type StateTransfer,
  totpLine,
  USAGE_FIELDS,
  type UsageDayLine,
  userLine,
} from "../transfer.ts";
import { inContractOrder } from "./record_order.ts";

const BATCH = 500;

export function pgTransfer(sql: Db): StateTransfer {
  return {
    exportState: () => exportPg(sql),
    importLines: (lines) => importPg(sql, lines),
    isEmpty: () => isPgEmpty(sql),
  };
}

export async function* exportPg(sql: Db): AsyncIterable<StateLine> {
  for await (
    const rows of sql<{ id: string; name: string; created: Date }[]>`
    select id, name, created from sovra_orgs order by id`.cursor(BATCH)
  ) {
    for (const r of rows) {
      yield { type: "org", id: r.id, name: r.name, created: r.created.toISOString() };
    }
  }
  for await (
    const rows of sql<{ org_id: string; granted: bigint; spent: bigint }[]>`
    select org_id, granted_micro_eur as granted, spent_micro_eur as spent
    from sovra_credits order by org_id`.cursor(BATCH)
  ) {
    for (const r of rows) {
      yield {
        type: "credits",
        org: r.org_id,
        granted_micro_eur: Number(r.granted),
        spent_micro_eur: Number(r.spent),
      };
    }
  }
  for await (
    const rows of sql<KeyRow[]>`select * from sovra_api_keys order by id`.cursor(BATCH)
  ) {
    for (const r of rows) yield apiKeyLine(keyRecord(r));
  }
  for await (
    const rows of sql<{ record: RequestRecord }[]>`
    select record from sovra_requests order by org_id, id`.cursor(BATCH)
  ) {
    for (const r of rows) yield requestLine(inContractOrder(r.record));
  }
  for await (
    const rows of sql<Record<string, bigint | string | Date>[]>`
    select org_id, to_char(day, 'YYYY-MM-DD') as day, ${sql(USAGE_FIELDS)}
    from sovra_usage_daily order by org_id, day`.cursor(BATCH)
  ) {
    for (const r of rows) {
      const line: UsageDayLine = {
        type: "usage_day",
        org: String(r.org_id),
        day: String(r.day),
        ...zeroUsage(),
      };
      for (const f of USAGE_FIELDS) line[f] = Number(r[f]);
      yield line;
    }
  }
  for (
    const r of await sql<{ org_id: string; policy: OrgPolicy }[]>`
    select org_id, policy from sovra_org_policies order by org_id`
  ) yield { type: "org_policy", org: r.org_id, policy: policyInOrder(r.policy) };
  for (
    const r of await sql<{ key_id: string; org_id: string; policy: KeyPolicy }[]>`
    select key_id, org_id, policy from sovra_key_policies order by key_id`
  ) yield { type: "key_policy", key: r.key_id, org: r.org_id, policy: policyInOrder(r.policy) };
  for await (
    const rows of sql<{ entry: PolicyAuditEntry }[]>`
    select entry from sovra_policy_audit order by org_id, id`.cursor(BATCH)
  ) {
    for (const r of rows) yield policyAuditLine(r.entry);
  }
  yield* exportControlPlane(sql);
}

export async function isPgEmpty(sql: Db): Promise<boolean> {
  const rows = await sql`select 1 from sovra_orgs limit 1`;
  return rows.length === 0;
}

/** Writes lines in transactions of up to `BATCH` lines; sums add, rows are inserted once. */
export async function importPg(sql: Db, lines: StateLine[]): Promise<void> {
  for (let i = 0; i < lines.length; i += BATCH) {
    const chunk = lines.slice(i, i + BATCH);
    const of = <T extends StateLine["type"]>(type: T) =>
      chunk.filter((l): l is Extract<StateLine, { type: T }> => l.type === type);
    const orgs = of("org");
    const credits = of("credits");
    const keys = of("api_key").map(apiKeyRecord);
    const requests = of("request").map(requestRecord);
    const usage = of("usage_day");
    const orgPolicies = of("org_policy");
    const keyPolicies = of("key_policy");
    const audit = of("policy_audit").map(policyAuditEntry);
    await sql.begin(async (tx) => {
      for (const o of orgs) {
        await tx`insert into sovra_orgs (id, name, created) values (${o.id}, ${o.name}, ${o.created})
          on conflict (id) do nothing`;
      }
      for (const c of credits) {
        await tx`
          insert into sovra_credits (org_id, granted_micro_eur, spent_micro_eur)
          values (${c.org}, ${BigInt(c.granted_micro_eur)}, ${BigInt(c.spent_micro_eur)})
          on conflict (org_id) do update set
            granted_micro_eur = sovra_credits.granted_micro_eur + excluded.granted_micro_eur,
            spent_micro_eur = sovra_credits.spent_micro_eur + excluded.spent_micro_eur`;
      }
      for (const k of keys) {
        await tx`
          insert into sovra_api_keys (id, org_id, name, rpm, hash, prefix, created, revoked,
            revoked_at, expires_at, rotated_from, rotated_to, budget_micro_eur, budget_period)
          values (${k.id}, ${k.org}, ${k.name}, ${k.rpm}, ${k.hash}, ${k.prefix}, ${k.created},
            ${k.revoked}, ${k.revoked_at}, ${k.expires_at ?? null}, ${k.rotated_from ?? null},
            ${k.rotated_to ?? null}, ${k.budget_micro_eur ?? null}, ${k.budget_period ?? null})
          on conflict do nothing`;
      }
      if (requests.length > 0) {
        await tx`
          insert into sovra_requests (id, org_id, created, key_id, cost_micro_eur, record)
          select r->>'id', r->>'org', (r->>'created')::timestamptz, r->>'key_id',
            (r->>'cost_micro_eur')::bigint, r
          from jsonb_array_elements(${tx.json(requests as never)}) as r
          on conflict (id) do nothing`;
      }
      for (const u of usage) {
        await tx`
          insert into sovra_usage_daily (org_id, day, requests, cost_micro_eur, prompt_tokens,
            completion_tokens, audio_seconds, characters, cached_tokens, cache_write_tokens,
            cache_savings_micro_eur, cache_surcharge_micro_eur)
          values (${u.org}, ${u.day}::date, ${BigInt(u.requests)}, ${BigInt(u.cost_micro_eur)},
            ${BigInt(u.prompt_tokens)}, ${BigInt(u.completion_tokens)},
            ${BigInt(u.audio_seconds)}, ${BigInt(u.characters)}, ${BigInt(u.cached_tokens)},
            ${BigInt(u.cache_write_tokens)}, ${BigInt(u.cache_savings_micro_eur)},
            ${BigInt(u.cache_surcharge_micro_eur)})
          on conflict (org_id, day) do update set
            requests = sovra_usage_daily.requests + excluded.requests,
            cost_micro_eur = sovra_usage_daily.cost_micro_eur + excluded.cost_micro_eur,
            prompt_tokens = sovra_usage_daily.prompt_tokens + excluded.prompt_tokens,
            completion_tokens = sovra_usage_daily.completion_tokens + excluded.completion_tokens,
            audio_seconds = sovra_usage_daily.audio_seconds + excluded.audio_seconds,
            characters = sovra_usage_daily.characters + excluded.characters,
            cached_tokens = sovra_usage_daily.cached_tokens + excluded.cached_tokens,
            cache_write_tokens = sovra_usage_daily.cache_write_tokens +
              excluded.cache_write_tokens,
            cache_savings_micro_eur = sovra_usage_daily.cache_savings_micro_eur +
              excluded.cache_savings_micro_eur,
            cache_surcharge_micro_eur = sovra_usage_daily.cache_surcharge_micro_eur +
              excluded.cache_surcharge_micro_eur`;
      }
      for (const p of orgPolicies) {
        await tx`insert into sovra_org_policies (org_id, policy)
          values (${p.org}, ${tx.json(p.policy as never)}) on conflict (org_id) do nothing`;
      }
      for (const p of keyPolicies) {
        await tx`insert into sovra_key_policies (key_id, org_id, policy)
          values (${p.key}, ${p.org}, ${
          tx.json(p.policy as never)
        }) on conflict (key_id) do nothing`;
      }
      for (const e of audit) {
        await tx`insert into sovra_policy_audit (id, org_id, entry)
          values (${e.id}, ${e.org}, ${tx.json(e as never)}) on conflict (id) do nothing`;
      }
      await importControlPlane(tx, chunk);
    });
  }
}

/** An export older than e-mail verification: the rule migration 11 applied to existing rows. */
const legacyVerifiedAt = (line: Extract<StateLine, { type: "user" }>) =>
  legacyEmailVerified(line) ? line.created : null;

const iso = (d: Date | null) => d === null ? null : d.toISOString();

async function* exportControlPlane(sql: Db): AsyncIterable<StateLine> {
  for await (
    const rows of sql<
      {
        id: string;
        email: string;
        password_hash: string | null;
        operator: boolean;
        created: Date;
        password_changed_at: Date | null;
        email_verified_at: Date | null;
        home_org: string | null;
      }[]
    >`select * from sovra_users order by id`.cursor(BATCH)
  ) {
    for (const r of rows) {
      yield userLine({
        ...r,
        created: iso(r.created)!,
        password_changed_at: iso(r.password_changed_at),
        email_verified_at: iso(r.email_verified_at),
      });
    }
  }
  for await (
    const rows of sql<{ org_id: string; user_id: string; role: Role; created: Date }[]>`
    select * from sovra_memberships order by org_id, user_id`.cursor(BATCH)
  ) {
    for (const r of rows) {
      yield membershipLine({
        org: r.org_id,
        user: r.user_id,
        role: r.role,
        created: iso(r.created)!,
      });
    }
  }
  for await (
    const rows of sql<
      {
        id: string;
        org_id: string;
        created: Date;
        amount_micro_eur: bigint;
        actor: string;
        note: string | null;
        kind: "grant" | "correction";
        corrects: string | null;
      }[]
    >`select * from sovra_ledger order by org_id, id`.cursor(BATCH)
  ) {
    for (const r of rows) {
      yield ledgerLine({
        id: r.id,
        org: r.org_id,
        created: iso(r.created)!,
        amount_micro_eur: Number(r.amount_micro_eur),
        actor: r.actor,
        note: r.note,
        kind: r.kind,
        corrects: r.corrects,
      });
    }
  }
  for await (
    const rows of sql<
      {
        id: string;
        org_id: string | null;
        created: Date;
        actor: string;
        action: AuditEntry["action"];
        target: string | null;
        detail: AuditEntry["detail"];
      }[]
    >`select * from sovra_audit order by org_id nulls first, id`.cursor(BATCH)
  ) {
    for (const r of rows) {
      yield auditLine({
        id: r.id,
        created: iso(r.created)!,
        org: r.org_id,
        actor: r.actor,
        action: r.action,
        target: r.target,
        detail: r.detail,
      });
    }
  }
  for await (
    const rows of sql<{ record: RoutingPolicyRecord }[]>`
    select record from sovra_routing_policies order by org_id, id`.cursor(BATCH)
  ) {
    for (const r of rows) yield { type: "routing_policy", ...r.record } as StateLine;
  }
  for (
    const r of await sql<
      {
        org_id: string;
        low_balance_micro_eur: bigint | null;
        rpm_ceiling: number | null;
        require_2fa: boolean;
        suspended_at: Date | null;
      }[]
    >`select * from sovra_org_settings order by org_id`
  ) {
    yield orgSettingsLine(r.org_id, {
      low_balance_micro_eur: r.low_balance_micro_eur === null
        ? null
        : Number(r.low_balance_micro_eur),
      rpm_ceiling: r.rpm_ceiling,
      require_2fa: r.require_2fa,
      suspended_at: iso(r.suspended_at),
    });
  }
  for (
    const r of await sql<{ record: AlertSettings }[]>`
      select record from sovra_alert_settings order by org_id`
  ) {
    yield alertSettingsLine(r.record);
  }
  for (
    const r of await sql<
      {
        user_id: string;
        secret: string;
        created: Date;
        enabled_at: Date;
        last_step: bigint;
        recovery_hashes: string[];
      }[]
    >`select * from sovra_totp where enabled_at is not null order by user_id`
  ) {
    yield totpLine({
      user: r.user_id,
      secret: r.secret,
      created: iso(r.created)!,
      enabled_at: iso(r.enabled_at)!,
      last_step: Number(r.last_step),
      recovery_hashes: r.recovery_hashes,
    });
  }
  // Providers before the bindings that name them (a binding references its provider).
  for (
    const r of await sql<{ record: SsoProviderRecord }[]>`
    select record from sovra_sso_providers order by id`
  ) yield ssoProviderLine(r.record);
  for (
    const r of await sql<{ record: SsoBindingRecord }[]>`
    select record from sovra_sso_bindings order by org_id`
  ) yield ssoBindingLine(r.record);
  for await (
    const rows of sql<{ record: SsoIdentityRecord }[]>`
    select record from sovra_sso_identities order by issuer, subject`.cursor(BATCH)
  ) {
    for (const r of rows) yield ssoIdentityLine(r.record);
  }
  for await (
    const rows of sql<{ org_id: string; user_id: string; provider_id: string }[]>`
    select * from sovra_sso_managed order by org_id, user_id`.cursor(BATCH)
  ) {
    for (const r of rows) {
      yield ssoManagedLine({ org: r.org_id, user: r.user_id, provider: r.provider_id });
    }
  }
}

async function importControlPlane(tx: Tx, chunk: StateLine[]): Promise<void> {
  for (const line of chunk) {
    switch (line.type) {
      case "user":
        await tx`
          insert into sovra_users (id, email, password_hash, operator, created, password_changed_at,
            email_verified_at, home_org)
          values (${line.id}, ${line.email}, ${line.password_hash}, ${line.operator},
            ${line.created}, ${line.password_changed_at},
            ${
          line.email_verified_at === undefined ? legacyVerifiedAt(line) : line.email_verified_at
        },
            ${line.home_org ?? null})
          on conflict do nothing`;
        break;
      case "membership":
        await tx`
          insert into sovra_memberships (org_id, user_id, role, created)
          values (${line.org}, ${line.user}, ${line.role}, ${line.created})
          on conflict do nothing`;
        break;
      case "ledger":
        // The granted total comes with the credits line: the ledger row alone, no grant.
        await tx`
          insert into sovra_ledger (id, org_id, created, amount_micro_eur, actor, note, kind,
            corrects)
          values (${line.id}, ${line.org}, ${line.created}, ${BigInt(line.amount_micro_eur)},
            ${line.actor}, ${line.note}, ${line.kind ?? "grant"}, ${line.corrects ?? null})
          on conflict do nothing`;
        break;
      case "audit":
        await tx`
          insert into sovra_audit (id, org_id, created, actor, action, target, detail)
          values (${line.id}, ${line.org}, ${line.created}, ${line.actor}, ${line.action},
            ${line.target}, ${tx.json(line.detail as never)})
          on conflict do nothing`;
        break;
      case "routing_policy": {
        const { type: _type, ...record } = line;
        await tx`
          insert into sovra_routing_policies (org_id, id, record)
          values (${record.org}, ${record.id}, ${JSON.stringify(record)}::text::json)
          on conflict do nothing`;
        break;
      }
      case "org_settings": {
        const s = orgSettings(line);
        const low = s.low_balance_micro_eur === null ? null : BigInt(s.low_balance_micro_eur);
        await tx`
          insert into sovra_org_settings
            (org_id, low_balance_micro_eur, rpm_ceiling, require_2fa, suspended_at)
          values (${line.org}, ${low}, ${s.rpm_ceiling}, ${s.require_2fa}, ${s.suspended_at})
          on conflict do nothing`;
        break;
      }
      case "alert_settings":
        await tx`
          insert into sovra_alert_settings (org_id, record)
          values (${line.org}, ${tx.json(alertSettingsOf(line) as never)})
          on conflict do nothing`;
        break;
      case "totp":
        await tx`
          insert into sovra_totp (user_id, secret, created, enabled_at, last_step, recovery_hashes)
          values (${line.user}, ${line.secret}, ${line.created}, ${line.enabled_at},
            ${line.last_step}, ${line.recovery_hashes})
          on conflict do nothing`;
        break;
      case "sso_provider": {
        const { type: _type, ...record } = line;
        await tx`insert into sovra_sso_providers (id, record)
          values (${record.id}, ${JSON.stringify(record)}::text::jsonb) on conflict do nothing`;
        break;
      }
      case "sso_binding": {
        const { type: _type, ...record } = line;
        await tx`insert into sovra_sso_bindings (org_id, provider_id, record)
          values (${record.org}, ${record.provider}, ${JSON.stringify(record)}::text::jsonb)
          on conflict do nothing`;
        break;
      }
      case "sso_identity": {
        const { type: _type, ...record } = line;
        await tx`insert into sovra_sso_identities (issuer, subject, user_id, record)
          values (${record.issuer}, ${record.subject}, ${record.user},
            ${JSON.stringify(record)}::text::jsonb)
          on conflict do nothing`;
        break;
      }
      case "sso_managed":
        await tx`insert into sovra_sso_managed (org_id, user_id, provider_id)
          values (${line.org}, ${line.user}, ${line.provider}) on conflict do nothing`;
        break;
    }
  }
}
