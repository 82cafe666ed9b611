/**
 * `admin export` / `admin import`: the whole state as JSON lines, the same on both backends,
 * so an operator can move from the embedded KV to PostgreSQL (or back) without losing a key or
 * a cent. Keys travel as hashes; balances as their two totals (granted, spent); request
 * metadata and daily aggregates as stored; organization and key policies with their audit
 * trail; single sign-on's providers, bindings and identities (`sso_transfer.ts`); enabled TOTP
 * enrolments with their secrets and recovery-code hashes, so no second factor is lost by a move
 * (the export is as secret as the store). Rate buckets are not exported (they expire within
 * two minutes), nor pending enrolments and sign-in challenges (minutes). An import goes into an empty store only, so nothing is counted twice.
 */
import type { AlertSettings } from "./alert_store.ts";
import { BUDGET_PERIODS } from "../util/budget_period.ts";
import { z } from "zod";
import {
  SsoBindingLine,
  SsoIdentityLine,
  SsoManagedLine,
  SsoProviderLine,
} from "./sso_transfer.ts";
import type { ApiKeyRecord, OrgRecord, RequestRecord } from "./records.ts";
import type { PolicyAuditEntry } from "./policy_store.ts";
import type {
  AuditEntry,
  LedgerEntry,
  MembershipRecord,
  OrgSettings,
  UserRecord,
} from "./account_records.ts";
import { ENDPOINT_NAMES } from "../billed_endpoints.ts";
import type { TotpRecord } from "./two_factor_records.ts";
import { DAILY_AGGREGATES, emailVerified } from "./account_records.ts";

export const EXPORT_VERSION = 1;

const money = z.number().int().nonnegative();
const count = z.number().int().nonnegative();

export const Header = z.object({
  type: z.literal("sovra_export"),
  version: z.literal(EXPORT_VERSION),
  backend: z.string(),
  exported_at: z.string(),
});

const OrgLine = z.object({
  type: z.literal("org"),
  id: z.string().min(1),
  name: z.string(),
  created: z.string(),
});

const CreditsLine = z.object({
  type: z.literal("credits"),
  org: z.string().min(1),
  granted_micro_eur: money,
  spent_micro_eur: money,
});

const ApiKeyLine = z.object({
  type: z.literal("api_key"),
  id: z.string().min(1),
  org: z.string().min(1),
  name: z.string().nullable(),
  rpm: z.number().int().positive(),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 hex digest"),
  prefix: z.string(),
  created: z.string(),
  revoked: z.boolean(),
  revoked_at: z.string().nullable(),
  // Expiry and rotation (absent in exports written before they existed: none).
  expires_at: z.string().nullable().default(null),
  rotated_from: z.string().nullable().default(null),
  rotated_to: z.string().nullable().default(null),
  // A per-key budget (absent in older exports: none). The period's spend is not exported: it
  // starts again from the imported requests' settles.
  budget_micro_eur: z.number().int().positive().nullable().default(null),
  budget_period: z.enum(BUDGET_PERIODS).nullable().default(null),
});

const nullableCount = count.nullable();
const RequestLine = z.looseObject({
  type: z.literal("request"),
  id: z.string().min(1),
  created: z.string(),
  org: z.string().min(1),
  key_id: z.string(),
  user: z.string().nullable(),
  endpoint: z.enum(ENDPOINT_NAMES),
  requested_model: z.string(),
  served_model: z.string().nullable(),
  provider: z.string().nullable(),
  status: z.number().int(),
  latency_ms: z.number(),
  prompt_tokens: nullableCount,
  completion_tokens: nullableCount,
  total_tokens: nullableCount,
  audio_seconds: z.number().nonnegative().nullable(),
  characters: nullableCount,
  cost_micro_eur: money,
  estimated: z.boolean(),
  stream: z.boolean(),
  fallbacks: count,
  // The prompt cache's fields (absent in exports written before they existed: unreported).
  cached_tokens: nullableCount.default(null),
  cache_write_tokens: nullableCount.default(null),
  cache_write_1h_tokens: nullableCount.default(null),
  cache_savings_micro_eur: z.number().int().default(0),
});

/** The daily aggregates an export line carries (`account_records.ts`). */
export const USAGE_FIELDS = DAILY_AGGREGATES;

const UsageDayLine = z.object({
  type: z.literal("usage_day"),
  org: z.string().min(1),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  requests: count,
  cost_micro_eur: money,
  prompt_tokens: count,
  completion_tokens: count,
  audio_seconds: count,
  characters: count,
  cached_tokens: count.default(0),
  cache_write_tokens: count.default(0),
  cache_savings_micro_eur: money.default(0),
  cache_surcharge_micro_eur: money.default(0),
});

const OrgPolicyLine = z.object({
  type: z.literal("org_policy"),
  org: z.string().min(1),
  policy: z.object({
    sovereignty: z.enum(["any", "strict_only"]),
    blocked_providers: z.array(z.string()),
    zdr_only: z.boolean(),
    allowed_models: z.array(z.string()).nullable(),
    guardrail: z.enum(["off", "flag", "block"]),
    // The guardrail's remote layer (absent in exports written before it existed).
    guardrail_remote: z.object({
      model: z.string().min(1),
      timeout_ms: z.number().int().positive(),
      on_error: z.enum(["open", "closed"]),
    }).nullable().optional(),
  }),
});

const KeyPolicyLine = z.object({
  type: z.literal("key_policy"),
  key: z.string().min(1),
  org: z.string().min(1),
  policy: z.object({
    sovereignty: z.literal("strict_only").optional(),
    blocked_providers: z.array(z.string()).optional(),
    zdr_only: z.literal(true).optional(),
    allowed_models: z.array(z.string()).optional(),
    guardrail: z.enum(["flag", "block"]).optional(),
  }),
});

const PolicyAuditLine = z.object({
  type: z.literal("policy_audit"),
  id: z.string().min(1),
  at: z.string(),
  org: z.string().min(1),
  key_id: z.string().nullable(),
  actor: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});

const iso = z.string();

const UserLine = z.object({
  type: z.literal("user"),
  id: z.string().min(1),
  email: z.string().min(3),
  password_hash: z.string().nullable(),
  operator: z.boolean(),
  created: iso,
  password_changed_at: iso.nullable(),
  // Absent in exports made before e-mail verification existed (read by the legacy rule).
  email_verified_at: iso.nullable().optional(),
  home_org: z.string().nullable().optional(),
});

const MembershipLine = z.object({
  type: z.literal("membership"),
  org: z.string().min(1),
  user: z.string().min(1),
  role: z.enum(["owner", "admin", "viewer"]),
  created: iso,
});

const LedgerLine = z.object({
  type: z.literal("ledger"),
  id: z.string().min(1),
  org: z.string().min(1),
  created: iso,
  amount_micro_eur: z.number().int(),
  actor: z.string(),
  note: z.string().nullable(),
  // Only on a correction (absent: a grant, as in exports written before corrections).
  kind: z.literal("correction").optional(),
  corrects: z.string().nullable().optional(),
});

const AuditLine = z.object({
  type: z.literal("audit"),
  id: z.string().min(1),
  created: iso,
  org: z.string().nullable(),
  actor: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

const OrgSettingsLine = z.object({
  type: z.literal("org_settings"),
  org: z.string().min(1),
  low_balance_micro_eur: money.nullable(),
  rpm_ceiling: z.number().int().positive().nullable(),
  // Only when set (absent: off / active, as in exports written before they existed).
  require_2fa: z.literal(true).optional(),
  suspended_at: iso.optional(),
});

/**
 * An organization's spend-alert settings (`alert_store.ts`), its signing secret included (like
 * a TOTP secret: the export is the whole state); the delivery log and claimed crossings stay.
 */
const AlertSettingsLine = z.object({
  type: z.literal("alert_settings"),
  org: z.string().min(1),
  webhook_url: z.string().nullable(),
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/, "must be a whsec_ secret").nullable(),
  balance_below_micro_eur: money.nullable(),
  daily_spend_above_micro_eur: money.nullable(),
  key_budget_percents: z.array(z.number().int().min(1).max(100)),
  email: z.string().nullable(),
  updated: iso,
});

/** An enabled TOTP enrolment (`two_factor_records.ts`). */
const TotpLine = z.object({
  type: z.literal("totp"),
  user: z.string().min(1),
  // As stored: base32, or sealed with SOVRA_SECRET_KEY (the importing instance needs that key).
  secret: z.string().regex(
    /^(?:[A-Z2-7]+=*|sealed:v1:[A-Za-z0-9_-]+)$/,
    "must be base32, or sealed:v1: and base64url",
  ),
  created: iso,
  enabled_at: iso,
  last_step: count,
  recovery_hashes: z.array(z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 hex digest")),
});

/** A smart-router policy as stored (the router validates it against the catalog on save). */
const RoutingPolicyLine = z.looseObject({
  type: z.literal("routing_policy"),
  org: z.string().min(1),
  id: z.string().min(1),
  name: z.string().optional(),
  pool: z.array(z.string()),
  strategy: z.enum(["auto", "metrics", "ordered"]),
  threshold: z.number(),
  weights: z.record(z.string(), z.number()).optional(),
  sticky_seconds: z.number().optional(),
  created: iso,
  updated: iso,
});

export const StateLine = z.discriminatedUnion("type", [
  OrgLine,
  CreditsLine,
  ApiKeyLine,
  RequestLine,
  UsageDayLine,
  OrgPolicyLine,
  KeyPolicyLine,
  PolicyAuditLine,
  UserLine,
  MembershipLine,
  LedgerLine,
  AuditLine,
  OrgSettingsLine,
  RoutingPolicyLine,
  SsoProviderLine,
  SsoBindingLine,
  SsoIdentityLine,
  SsoManagedLine,
  TotpLine,
  AlertSettingsLine,
]);
export type StateLine = z.infer<typeof StateLine>;
export type UsageDayLine = z.infer<typeof UsageDayLine>;

/** Both stores implement this beside `Store`. */
export interface StateTransfer {
  /** Every line of the state (without the header), orgs first. */
  exportState(): AsyncIterable<StateLine>;
  /** Writes lines into this (empty) store. */
  importLines(lines: StateLine[]): Promise<void>;
  /** Whether the store holds no organization yet. */
  isEmpty(): Promise<boolean>;
}

export const orgLine = (o: OrgRecord): StateLine => ({ type: "org", ...o });
/** One field order whichever backend it comes from (jsonb reorders keys). */
export const alertSettingsLine = (s: AlertSettings): StateLine => ({
  type: "alert_settings",
  org: s.org,
  webhook_url: s.webhook_url,
  secret: s.secret,
  balance_below_micro_eur: s.balance_below_micro_eur,
  daily_spend_above_micro_eur: s.daily_spend_above_micro_eur,
  key_budget_percents: s.key_budget_percents,
  email: s.email,
  updated: s.updated,
});
export function alertSettingsOf(
  line: Extract<StateLine, { type: "alert_settings" }>,
): AlertSettings {
  const { type: _type, ...settings } = line;
  return settings;
}
/** One field order whichever backend's record it is (a KV record sets the optional fields early). */
export const apiKeyLine = (k: ApiKeyRecord): StateLine => {
  const { expires_at, rotated_from, rotated_to, budget_micro_eur, budget_period, ...rest } = k;
  return {
    type: "api_key",
    ...rest,
    expires_at: expires_at ?? null,
    rotated_from: rotated_from ?? null,
    rotated_to: rotated_to ?? null,
    budget_micro_eur: budget_micro_eur ?? null,
    budget_period: budget_period ?? null,
  };
};
export const requestLine = (r: RequestRecord): StateLine => ({ type: "request", ...r });
const ORG_POLICY_FIELDS = [
  "sovereignty",
  "blocked_providers",
  "zdr_only",
  "allowed_models",
  "guardrail",
] as const;

/**
 * A policy document with its fields in the store contract's order (jsonb reorders keys), the
 * remote guardrail layer's too.
 */
export function policyInOrder<T extends object>(policy: T): T {
  const source = policy as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of ORG_POLICY_FIELDS) if (field in source) out[field] = source[field];
  for (const [field, value] of Object.entries(source)) if (!(field in out)) out[field] = value;
  const remote = out.guardrail_remote as Record<string, unknown> | null | undefined;
  if (remote) {
    out.guardrail_remote = {
      model: remote.model,
      timeout_ms: remote.timeout_ms,
      on_error: remote.on_error,
    };
  }
  return out as T;
}

export const policyAuditLine = (e: PolicyAuditEntry): StateLine =>
  ({
    type: "policy_audit",
    id: e.id,
    at: e.at,
    org: e.org,
    key_id: e.key_id,
    actor: e.actor,
    before: e.before === null ? null : policyInOrder(e.before),
    after: e.after === null ? null : policyInOrder(e.after),
  }) as StateLine;

export function policyAuditEntry(
  line: Extract<StateLine, { type: "policy_audit" }>,
): PolicyAuditEntry {
  const { type: _type, ...entry } = line;
  return entry as PolicyAuditEntry;
}

/**
 * Control-plane lines with their fields in one order on both backends (jsonb reorders keys;
 * an audit entry's detail is written with sorted keys).
 */
export const userLine = (u: UserRecord): StateLine => ({
  type: "user",
  id: u.id,
  email: u.email,
  password_hash: u.password_hash,
  operator: u.operator,
  created: u.created,
  password_changed_at: u.password_changed_at,
  email_verified_at: emailVerified(u) ? (u.email_verified_at ?? u.created) : null,
  home_org: u.home_org ?? null,
});

export const membershipLine = (m: MembershipRecord): StateLine => ({
  type: "membership",
  org: m.org,
  user: m.user,
  role: m.role,
  created: m.created,
});

export const ledgerLine = (e: LedgerEntry): StateLine => ({
  type: "ledger",
  id: e.id,
  org: e.org,
  created: e.created,
  amount_micro_eur: e.amount_micro_eur,
  actor: e.actor,
  note: e.note,
  ...(e.kind === "correction" ? { kind: e.kind, corrects: e.corrects ?? null } : {}),
});

/** A ledger line back to its entry. */
export function ledgerEntry(line: Extract<StateLine, { type: "ledger" }>): LedgerEntry {
  const { type: _type, kind, corrects, ...entry } = line;
  return kind === "correction" ? { ...entry, kind, corrects: corrects ?? null } : entry;
}

export const auditLine = (e: AuditEntry): StateLine => ({
  type: "audit",
  id: e.id,
  created: e.created,
  org: e.org,
  actor: e.actor,
  action: e.action,
  target: e.target,
  detail: Object.fromEntries(Object.entries(e.detail).sort(([a], [b]) => a < b ? -1 : 1)),
});

export const orgSettingsLine = (org: string, s: OrgSettings): StateLine => ({
  type: "org_settings",
  org,
  low_balance_micro_eur: s.low_balance_micro_eur,
  rpm_ceiling: s.rpm_ceiling,
  ...(s.require_2fa ? { require_2fa: true as const } : {}),
  ...(s.suspended_at !== null ? { suspended_at: s.suspended_at } : {}),
});

/** An org_settings line back to the settings (absent fields: their defaults). */
export function orgSettings(line: Extract<StateLine, { type: "org_settings" }>): OrgSettings {
  return {
    low_balance_micro_eur: line.low_balance_micro_eur,
    rpm_ceiling: line.rpm_ceiling,
    require_2fa: line.require_2fa === true,
    suspended_at: line.suspended_at ?? null,
  };
}

/** Only enabled enrolments travel (a pending one is minutes old and not usable yet). */
export const totpLine = (t: TotpRecord & { enabled_at: string }): StateLine => ({
  type: "totp",
  user: t.user,
  secret: t.secret,
  created: t.created,
  enabled_at: t.enabled_at,
  last_step: t.last_step,
  recovery_hashes: t.recovery_hashes,
});

/** A line back to its record (the `type` tag dropped). */
export function untagged<T extends StateLine["type"], R>(
  line: Extract<StateLine, { type: T }>,
): R {
  const { type: _type, ...record } = line;
  return record as R;
}

/** A request line back to the record (the `type` tag dropped). */
export function requestRecord(line: Extract<StateLine, { type: "request" }>): RequestRecord {
  const { type: _type, ...record } = line;
  return record as RequestRecord;
}

export function apiKeyRecord(line: Extract<StateLine, { type: "api_key" }>): ApiKeyRecord {
  const { type: _type, ...record } = line;
  return record;
}

/** Parses one JSON line of an export; throws with the line number on anything else. */
export function parseLine(text: string, lineNumber: number): StateLine | "header" {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`Line ${lineNumber}: not JSON.`);
  }
  if ((value as { type?: unknown })?.type === "sovra_export") {
    const header = Header.safeParse(value);
    if (!header.success) {
      throw new Error(`Line ${lineNumber}: unsupported export header (version ${EXPORT_VERSION}).`);
    }
    return "header";
  }
  const line = StateLine.safeParse(value);
  if (!line.success) {
    const issue = line.error.issues[0];
    throw new Error(
      `Line ${lineNumber}: ${issue?.path.join(".") || "(line)"}: ${issue?.message ?? "invalid"}.`,
    );
  }
  return line.data;
}
