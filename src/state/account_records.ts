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

/** One day's totals from the settle aggregates (missing fields are zero). */
export interface UsageDay {
  day: string;
  requests: number;
  cost_micro_eur: number;
  prompt_tokens: number;
  completion_tokens: number;
  audio_seconds: number;
  characters: number;
  /** Prompt tokens read from a provider's cache, and written to it. */
  cached_tokens: number;
  cache_write_tokens: number;
  /** What caching saved (requests whose savings were positive) and cost extra (negative). */
  cache_savings_micro_eur: number;
  cache_surcharge_micro_eur: number;
}
