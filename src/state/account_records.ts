/**
 * What the control plane (dashboard, admin CLI) stores beside the gateway's records: users,
 * memberships, sessions, one-time set-password tokens, the credit ledger, the audit log and
 * per-organization settings. Plain data; never a password, a session token or an API key
 * in clear (only their hashes).
 */

export type Role = "owner" | "admin" | "viewer";
export const ROLES: readonly Role[] = ["owner", "admin", "viewer"];

export interface UserRecord {
  id: string;
  /** Lower-cased; unique. */
  email: string;
  /** A self-describing password hash (`scrypt$…`), or null until the user sets one. */
  password_hash: string | null;
  /** Whoever runs the gateway: sees every organization, creates them, grants credits. */
  operator: boolean;
  created: string;
  password_changed_at: string | null;
  /**
   * When the account proved it holds its e-mail: a set-password link that went to that mailbox
   * (a mailed reset) or to the operator (who made the account or its reset link) was used. Null
   * for an account made through an invitation link or by single sign-on: whoever held the link or
   * ran the identity provider chose its credentials. Absent on records written before the field
   * existed; `emailVerified` (dashboard) reads those by a fixed rule.
   */
  email_verified_at?: string | null;
  /**
   * The organization whose invitation link or SSO e-mail-domain rule made the account: the one
   * organization an unverified account may join. Null (or absent) otherwise.
   */
  home_org?: string | null;
}

/**
 * How a record written before `email_verified_at` existed is read (and how PostgreSQL migration
 * 11 filled the column): verified when it is an operator's, or when its password was set after
 * the account was made — by the operator's set-password link or a reset link. An account made
 * through an invitation link got its password in the same instant it was made, and one made by
 * single sign-on has none: both are unverified. (An invitation-made account whose password was
 * changed later cannot be told from a reset one and counts as verified: the rule errs there
 * only for accounts made before the upgrade.)
 */
export function legacyEmailVerified(
  user: Pick<UserRecord, "operator" | "password_hash" | "password_changed_at" | "created">,
): boolean {
  if (user.operator) return true;
  return user.password_hash !== null && user.password_changed_at !== null &&
    Date.parse(user.password_changed_at) !== Date.parse(user.created);
}

/** Whether the account proved it holds its e-mail (see `UserRecord.email_verified_at`). */
export function emailVerified(user: UserRecord): boolean {
  return user.email_verified_at === undefined
    ? legacyEmailVerified(user)
    : user.email_verified_at !== null;
}

export interface MembershipRecord {
  org: string;
  user: string;
  role: Role;
  created: string;
}

export interface SessionRecord {
  /** SHA-256 (hex) of the session token; the token itself is only in the browser's cookie. */
  hash: string;
  user: string;
  created: string;
  /** Last time the session was used (refreshed at most once a minute). */
  last_seen: string;
  /** The session ends here whatever its use. */
  expires: string;
  /** The identity provider it was signed in through; absent for a password sign-in. */
  sso_provider?: string;
  /**
   * Whether the sign-in gave the account's own second factor (a TOTP or recovery code), or the
   * session replaced one that had. Absent on sessions older than the field.
   */
  second_factor?: boolean;
  /**
   * The user's `password_changed_at` read before the sign-in's credentials were checked (`""`
   * for none): a session whose epoch is not the user's current one was made with a password
   * that changed meanwhile, and is refused. Absent on sessions older than the field.
   */
  password_epoch?: string;
}

/** A one-time link to set a password (new user, invitation, reset); 24 h. */
export interface PasswordTokenRecord {
  /** SHA-256 (hex) of the token in the link. */
  hash: string;
  user: string;
  created: string;
  expires: string;
}

/**
 * An invitation to join an organization, addressed to an e-mail (not to an account): the
 * account with that e-mail accepts or declines it after signing in; while no account has the
 * e-mail, the link's holder may create that account (and so accepts). One pending invitation
 * per organization and e-mail: inviting again replaces it and its link.
 */
export interface InvitationRecord {
  id: string;
  org: string;
  /** Lower-cased. */
  email: string;
  role: Role;
  /** SHA-256 (hex) of the token in the invitation link. */
  token_hash: string;
  /** The inviting user's e-mail, or `cli`. */
  invited_by: string;
  created: string;
  expires: string;
}

/**
 * A credit grant or top-up, or an operator's correction of one. Daily spend lines are derived
 * from the usage aggregates. Entries are never edited: a wrong grant is answered by a
 * correction, a compensating entry of its own with the reason in `note`.
 */
export interface LedgerEntry {
  id: string;
  org: string;
  created: string;
  /** Positive for a grant; a correction may be negative (it never takes the granted total below 0). */
  amount_micro_eur: number;
  /** The acting user's e-mail, or `cli` for the admin CLI. */
  actor: string;
  /** The grant's note; a correction's reason (required). */
  note: string | null;
  /** Absent on entries written before corrections existed: a grant. */
  kind?: "grant" | "correction";
  /** A correction's grant, when the operator named one (its ledger id). */
  corrects?: string | null;
}

export type AuditAction =
  | "key.created"
  | "key.revoked"
  | "key.rotated"
  | "key.expiry_set"
  | "key.budget_set"
  | "credits.granted"
  | "member.invited"
  | "member.added"
  | "invitation.accepted"
  | "invitation.declined"
  | "invitation.revoked"
  | "member.role_changed"
  | "member.removed"
  | "org.created"
  | "org.settings_changed"
  | "policy.changed"
  | "routing.saved"
  | "routing.deleted"
  | "user.created"
  | "user.removed"
  | "user.password_set"
  | "login.failed"
  | "member.joined"
  | "sso.provider_added"
  | "sso.provider_removed"
  | "sso.bound"
  | "sso.unbound"
  | "sso.signed_in"
  | "sso.linked"
  | "sso.unlinked"
  | "sso.refused"
  | "sso.role_kept"
  | "sso.password_refused"
  | "sso.break_glass"
  | "alerts.changed"
  | "alerts.secret_created"
  | "user.password_changed"
  | "user.password_reset_requested"
  | "user.password_reset_refused"
  | "user.2fa_enabled"
  | "user.2fa_disabled"
  | "user.2fa_recovery_codes_renewed"
  | "login.2fa_failed"
  | "login.recovery_code_used"
  | "org.suspended"
  | "org.restored"
  | "credits.corrected";

/** One control-plane action. Never a secret: ids, e-mails, roles and amounts only. */
export interface AuditEntry {
  id: string;
  created: string;
  /** The organization the action concerns; null for actions outside any organization. */
  org: string | null;
  /** The acting user's e-mail, `cli`, or for a failed login the e-mail tried. */
  actor: string;
  action: AuditAction;
  /** What the action touched (a key id, a user's e-mail, an organization id). */
  target: string | null;
  detail: Record<string, string | number | boolean | null>;
}

export interface OrgSettings {
  /** Below this balance every page warns; null = no warning. */
  low_balance_micro_eur: number | null;
  /** The highest RPM a key of this organization may get (set by an operator); null = none. */
  rpm_ceiling: number | null;
  /**
   * An owner's setting: a session reaches the organization only when signed in with a second
   * factor (TOTP) or through single sign-on; others are sent to enrol first.
   */
  require_2fa: boolean;
  /**
   * Set while an operator suspends the organization (its keys get 403
   * `organization_suspended`); null when active. Changed only by `setOrgSuspension`.
   */
  suspended_at: string | null;
}

export const DEFAULT_ORG_SETTINGS: OrgSettings = {
  low_balance_micro_eur: null,
  rpm_ceiling: null,
  require_2fa: false,
  suspended_at: null,
};

/**
 * The settle's daily aggregates per organization, in their order (the export's lines, the KV
 * keys' last part, the PostgreSQL columns read): requests and cost, the row's summed usage
 * columns, and what the prompt cache saved (requests whose savings were positive) and cost extra
 * (negative savings), summed apart because KV sums are unsigned.
 */
export const DAILY_AGGREGATES = [
  "requests",
  "cost_micro_eur",
  "prompt_tokens",
  "completion_tokens",
  "audio_seconds",
  "characters",
  "cached_tokens",
  "cache_write_tokens",
  "cache_savings_micro_eur",
  "cache_surcharge_micro_eur",
] as const;

export type DailyAggregate = (typeof DAILY_AGGREGATES)[number];
export type DailyTotals = Record<DailyAggregate, number>;

/** A day with nothing counted: every aggregate 0, in their order. */
export function zeroUsage(): DailyTotals {
  const totals = {} as DailyTotals;
  for (const field of DAILY_AGGREGATES) totals[field] = 0;
  return totals;
}

/** One day's totals from the settle aggregates (missing fields are zero). */
export interface UsageDay extends DailyTotals {
  day: string;
}
