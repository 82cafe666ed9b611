/** Export and import of the whole state on Deno KV (see ../transfer.ts for the line format). */
import type { AlertSettings } from "../alert_store.ts";
import { kvKeys, type UsageField } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { ApiKeyRecord, OrgRecord, RequestRecord } from "../records.ts";
import type { KeyPolicy, OrgPolicy, PolicyAuditEntry } from "../policy_store.ts";
import type { RoutingPolicyRecord } from "../routing_policy_store.ts";
import {
  type AuditEntry,
  DEFAULT_ORG_SETTINGS,
  type LedgerEntry,
  type MembershipRecord,
  type OrgSettings,
  type UserRecord,
} from "../account_records.ts";
import {
  alertSettingsLine,
  alertSettingsOf,
  apiKeyLine,
  apiKeyRecord,
  auditLine,
  ledgerEntry,
  ledgerLine,
  membershipLine,
  orgLine,
  orgSettings,
  orgSettingsLine,
  policyAuditEntry,
  policyAuditLine,
  requestLine,
  requestRecord,
  type StateLine,
  type StateTransfer,
  totpLine,
  untagged,
  USAGE_FIELDS,
  type UsageDayLine,
  userLine,
} from "../transfer.ts";
import {
  ssoBindingLine,
  ssoIdentityLine,
  ssoManagedLine,
  ssoProviderLine,
} from "../sso_transfer.ts";
import type {
  SsoBindingRecord,
  SsoIdentityRecord,
  SsoManagedMembership,
  SsoProviderRecord,
} from "../sso_records.ts";
import type { TotpRecord } from "../two_factor_records.ts";

function u64(value: unknown): number {
  return value instanceof Deno.KvU64 ? Number(value.value) : 0;
}

/** The area as the store composes it. */
export function kvTransfer(kv: Deno.Kv): StateTransfer {
  return {
    exportState: () => exportKv(kv),
    importLines: (lines) => importKv(kv, lines),
    isEmpty: () => isKvEmpty(kv),
  };
}

export async function* exportKv(kv: Deno.Kv): AsyncIterable<StateLine> {
  for await (const e of kv.list<OrgRecord>({ prefix: kvKeys.orgPrefix() })) yield orgLine(e.value);
  const credits = new Map<string, { granted: number; spent: number }>();
  for await (const e of kv.list({ prefix: kvKeys.creditPrefix() })) {
    const org = e.key[1] as string;
    const totals = credits.get(org) ?? { granted: 0, spent: 0 };
    totals[e.key[2] as "granted" | "spent"] = u64(e.value);
    credits.set(org, totals);
  }
  for (const [org, t] of credits) {
    yield { type: "credits", org, granted_micro_eur: t.granted, spent_micro_eur: t.spent };
  }
  for await (const e of kv.list<ApiKeyRecord>({ prefix: kvKeys.apiKeyPrefix() })) {
    yield apiKeyLine(e.value);
  }
  for await (const e of kv.list<RequestRecord>({ prefix: kvKeys.requestAllPrefix() })) {
    yield requestLine(e.value);
  }
  let day: UsageDayLine | undefined;
  for await (const e of kv.list({ prefix: kvKeys.usageDayAllPrefix() })) {
    const [, org, d, field] = e.key as [string, string, string, UsageField & keyof UsageDayLine];
    if (!day || day.org !== org || day.day !== d) {
      if (day) yield day;
      day = { type: "usage_day", org, day: d, ...zeroUsage() };
    }
    day[field] = u64(e.value);
  }
  if (day) yield day;
  for await (const e of kv.list<OrgPolicy>({ prefix: kvKeys.orgPolicyPrefix() })) {
    yield { type: "org_policy", org: e.key[1] as string, policy: e.value };
  }
  for await (const e of kv.list<KeyPolicy>({ prefix: kvKeys.keyPolicyPrefix() })) {
    const key = e.key[1] as string;
    const record = (await kv.get<ApiKeyRecord>(kvKeys.apiKey(key))).value;
    if (record) yield { type: "key_policy", key, org: record.org, policy: e.value };
  }
  for await (const e of kv.list<PolicyAuditEntry>({ prefix: kvKeys.policyAuditAllPrefix() })) {
    yield policyAuditLine(e.value);
  }
  for await (const e of kv.list<UserRecord>({ prefix: kvKeys.userPrefix() })) {
    yield userLine(e.value);
  }
  for await (const e of kv.list<MembershipRecord>({ prefix: kvKeys.memberAllPrefix() })) {
    yield membershipLine(e.value);
  }
  for await (const e of kv.list<LedgerEntry>({ prefix: kvKeys.ledgerAllPrefix() })) {
    yield ledgerLine(e.value);
  }
  for await (const e of kv.list<AuditEntry>({ prefix: kvKeys.auditAllPrefix() })) {
    yield auditLine(e.value);
  }
  for await (
    const e of kv.list<RoutingPolicyRecord>({ prefix: kvKeys.routingPolicyAllPrefix() })
  ) {
    yield { type: "routing_policy", ...e.value } as StateLine;
  }
  // A suspension has a key of its own; it travels in its organization's settings line (by
  // organization id, as PostgreSQL lists them).
  const settings = new Map<string, OrgSettings>();
  for await (const e of kv.list<OrgSettings>({ prefix: kvKeys.orgSettingsPrefix() })) {
    settings.set(e.key[1] as string, { ...DEFAULT_ORG_SETTINGS, ...e.value });
  }
  for await (const e of kv.list<string>({ prefix: kvKeys.orgSuspendedPrefix() })) {
    const org = e.key[1] as string;
    settings.set(org, { ...(settings.get(org) ?? DEFAULT_ORG_SETTINGS), suspended_at: e.value });
  }
  for (const org of [...settings.keys()].sort()) yield orgSettingsLine(org, settings.get(org)!);
  for await (const e of kv.list<AlertSettings>({ prefix: kvKeys.alertSettingsPrefix() })) {
    yield alertSettingsLine(e.value);
  }
  for await (const e of kv.list<TotpRecord>({ prefix: kvKeys.totpPrefix() })) {
    const t = e.value;
    if (t.enabled_at !== null) yield totpLine({ ...t, enabled_at: t.enabled_at });
  }
  // Providers before the bindings that name them.
  for await (const e of kv.list<SsoProviderRecord>({ prefix: kvKeys.ssoProviderPrefix() })) {
    yield ssoProviderLine(e.value);
  }
  for await (const e of kv.list<SsoBindingRecord>({ prefix: kvKeys.ssoBindingPrefix() })) {
    yield ssoBindingLine(e.value);
  }
  for await (const e of kv.list<SsoIdentityRecord>({ prefix: kvKeys.ssoIdentityPrefix() })) {
    yield ssoIdentityLine(e.value);
  }
  for await (
    const e of kv.list<SsoManagedMembership>({ prefix: kvKeys.ssoManagedAllPrefix() })
  ) {
    yield ssoManagedLine(e.value);
  }
}

function zeroUsage(): Record<(typeof USAGE_FIELDS)[number], number> {
  return Object.fromEntries(USAGE_FIELDS.map((f) => [f, 0])) as Record<
    (typeof USAGE_FIELDS)[number],
    number
  >;
}

export async function isKvEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: kvKeys.orgPrefix() }, { limit: 1 })) return false;
  return true;
}

/** Writes lines in atomics of at most ~300 mutations (KV allows 1000). */
export async function importKv(kv: Deno.Kv, lines: StateLine[]): Promise<void> {
  let op = kv.atomic();
  let mutations = 0;
  const flush = async () => {
    if (mutations === 0) return;
    const pending = op;
    await withLockRetry(() => pending.commit());
    op = kv.atomic();
    mutations = 0;
  };
  for (const line of lines) {
    switch (line.type) {
      case "org": {
        const { type: _type, ...org } = line;
        op.set(kvKeys.org(org.id), org);
        mutations++;
        break;
      }
      case "credits":
        op.sum(kvKeys.credit(line.org, "granted"), BigInt(line.granted_micro_eur));
        op.sum(kvKeys.credit(line.org, "spent"), BigInt(line.spent_micro_eur));
        mutations += 2;
        break;
      case "api_key": {
        const record = apiKeyRecord(line);
        op.set(kvKeys.apiKey(record.id), record);
        op.set(kvKeys.apiKeyHash(record.hash), record.id);
        op.set(kvKeys.orgKey(record.org, record.id), true);
        mutations += 3;
        break;
      }
      case "request": {
        const record = requestRecord(line);
        op.set(kvKeys.request(record.org, record.id), record);
        mutations++;
        break;
      }
      case "org_policy":
        op.set(kvKeys.orgPolicy(line.org), line.policy);
        mutations++;
        break;
      case "key_policy":
        op.set(kvKeys.keyPolicy(line.key), line.policy);
        mutations++;
        break;
      case "policy_audit": {
        const entry = policyAuditEntry(line);
        op.set(kvKeys.policyAudit(entry.org, entry.id), entry);
        mutations++;
        break;
      }
      case "user": {
        const user = untagged<"user", UserRecord>(line);
        op.set(kvKeys.user(user.id), user).set(kvKeys.userEmail(user.email), user.id);
        mutations += 2;
        break;
      }
      case "membership": {
        const m = untagged<"membership", MembershipRecord>(line);
        op.set(kvKeys.member(m.org, m.user), m).set(kvKeys.userOrg(m.user, m.org), m.role);
        mutations += 2;
        break;
      }
      case "ledger": {
        const entry = ledgerEntry(line);
        op.set(kvKeys.ledger(entry.org, entry.id), entry);
        mutations++;
        break;
      }
      case "audit": {
        const entry = untagged<"audit", AuditEntry>(line);
        op.set(kvKeys.audit(entry.org, entry.id), entry);
        mutations++;
        break;
      }
      case "org_settings": {
        const { suspended_at, ...settings } = orgSettings(line);
        op.set(kvKeys.orgSettings(line.org), settings);
        if (suspended_at !== null) op.set(kvKeys.orgSuspended(line.org), suspended_at);
        mutations += 2;
        break;
      }
      case "alert_settings":
        op.set(kvKeys.alertSettings(line.org), alertSettingsOf(line));
        mutations++;
        break;
      case "totp": {
        const record = untagged<"totp", TotpRecord>(line);
        op.set(kvKeys.totp(record.user), record);
        mutations++;
        break;
      }
      case "routing_policy": {
        const record = untagged<"routing_policy", RoutingPolicyRecord>(line);
        op.set(kvKeys.routingPolicy(record.org, record.id), record);
        mutations++;
        break;
      }
      case "sso_provider":
        op.set(kvKeys.ssoProvider(line.id), untagged<"sso_provider", SsoProviderRecord>(line));
        mutations++;
        break;
      case "sso_binding":
        op.set(kvKeys.ssoBinding(line.org), untagged<"sso_binding", SsoBindingRecord>(line))
          .set(kvKeys.ssoProviderOrg(line.provider, line.org), true);
        mutations += 2;
        break;
      case "sso_identity":
        op.set(
          kvKeys.ssoIdentity(line.issuer, line.subject),
          untagged<"sso_identity", SsoIdentityRecord>(line),
        ).set(kvKeys.ssoUserIdentity(line.user, line.issuer, line.subject), true);
        mutations += 2;
        break;
      case "sso_managed":
        op.set(
          kvKeys.ssoManaged(line.org, line.user),
          untagged<"sso_managed", SsoManagedMembership>(line),
        );
        mutations++;
        break;
      case "usage_day":
        for (const field of USAGE_FIELDS) {
          if (line[field] > 0) {
            op.sum(kvKeys.usageDay(line.org, line.day, field), BigInt(line[field]));
            mutations++;
          }
        }
        break;
    }
    if (mutations >= 300) await flush();
  }
  await flush();
}
