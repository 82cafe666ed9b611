/**
 * The PostgreSQL schema as numbered migrations, applied in order at start (and by
 * `admin migrate`). A migration, once merged, never changes: add a new one. Money is `bigint`
 * micro-EUR; the SQL keeps to what PostgreSQL 15+ accepts (and CockroachDB / YugabyteDB where
 * it costs nothing: no extensions, no triggers, no stored functions). docs/fleet.md documents
 * each table.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    sql: `
create table sovra_orgs (
  id text collate "C" primary key,
  name text not null,
  created timestamptz not null
);

-- Only ever incremented (granted by top-ups, spent by settles): balance = granted - spent.
create table sovra_credits (
  org_id text primary key,
  granted_micro_eur bigint not null default 0,
  spent_micro_eur bigint not null default 0
);

create table sovra_api_keys (
  id text collate "C" primary key,
  org_id text not null,
  name text,
  rpm integer not null,
  hash text not null unique,
  prefix text not null,
  created timestamptz not null,
  revoked boolean not null default false,
  revoked_at timestamptz
);
create index sovra_api_keys_org on sovra_api_keys (org_id, id);

-- Requests per key per minute (the two-bucket limiter reads this minute and the last).
create table sovra_rate_buckets (
  minute bigint not null,
  key_id text not null,
  requests bigint not null,
  primary key (minute, key_id)
);

-- Request metadata: the contract's fields (never a prompt or a completion). Ids sort by time.
create table sovra_requests (
  id text collate "C" primary key,
  org_id text not null,
  created timestamptz not null,
  key_id text not null,
  cost_micro_eur bigint not null,
  record jsonb not null
);
create index sovra_requests_org on sovra_requests (org_id, id);
create index sovra_requests_created on sovra_requests (created);

create table sovra_usage_daily (
  org_id text not null,
  day date not null,
  requests bigint not null default 0,
  cost_micro_eur bigint not null default 0,
  prompt_tokens bigint not null default 0,
  completion_tokens bigint not null default 0,
  audio_seconds bigint not null default 0,
  characters bigint not null default 0,
  primary key (org_id, day)
);
`,
  },
  {
    version: 2,
    name: "organization policies",
    sql: `
-- Organization policies: one JSON document per organization and per narrowed key;
-- every change is one audit row (newest first by id).
create table sovra_org_policies (
  org_id text collate "C" primary key,
  policy jsonb not null
);

create table sovra_key_policies (
  key_id text collate "C" primary key,
  org_id text not null,
  policy jsonb not null
);

create table sovra_policy_audit (
  id text collate "C" primary key,
  org_id text not null,
  entry jsonb not null
);
create index sovra_policy_audit_org on sovra_policy_audit (org_id, id);
`,
  },
  {
    version: 3,
    name: "dashboard control plane",
    sql: `
-- Users, memberships, sessions and set-password tokens (secrets as SHA-256 only).
create table sovra_users (
  id text collate "C" primary key,
  email text not null unique,
  password_hash text,
  operator boolean not null default false,
  created timestamptz not null,
  password_changed_at timestamptz
);

create table sovra_memberships (
  org_id text collate "C" not null,
  user_id text collate "C" not null,
  role text not null check (role in ('owner', 'admin', 'viewer')),
  created timestamptz not null,
  primary key (org_id, user_id)
);
create index sovra_memberships_user on sovra_memberships (user_id, org_id);

create table sovra_sessions (
  hash text primary key,
  user_id text not null,
  created timestamptz not null,
  last_seen timestamptz not null,
  expires timestamptz not null
);
create index sovra_sessions_user on sovra_sessions (user_id);
create index sovra_sessions_expires on sovra_sessions (expires);

create table sovra_password_tokens (
  hash text primary key,
  user_id text not null,
  created timestamptz not null,
  expires timestamptz not null
);
create index sovra_password_tokens_user on sovra_password_tokens (user_id);

create table sovra_login_failures (
  subject text not null,
  window_start bigint not null,
  failures bigint not null,
  forget_after timestamptz not null,
  primary key (subject, window_start)
);

-- Credit grants (the granted total in sovra_credits is their sum plus imports).
create table sovra_ledger (
  id text collate "C" primary key,
  org_id text not null,
  created timestamptz not null,
  amount_micro_eur bigint not null,
  actor text not null,
  note text
);
create index sovra_ledger_org on sovra_ledger (org_id, id);

create table sovra_audit (
  id text collate "C" primary key,
  org_id text collate "C",
  created timestamptz not null,
  actor text not null,
  action text not null,
  target text,
  detail jsonb not null
);
create index sovra_audit_org on sovra_audit (org_id, id);

create table sovra_org_settings (
  org_id text collate "C" primary key,
  low_balance_micro_eur bigint,
  rpm_ceiling integer
);
`,
  },
  {
    version: 4,
    name: "routing policies",
    sql: `
-- Smart-router policies, per organization; the record as written.
create table sovra_routing_policies (
  org_id text collate "C" not null,
  id text collate "C" not null,
  record json not null,
  primary key (org_id, id)
);
`,
  },
  {
    version: 5,
    name: "router pins",
    sql: `
-- Smart-router pins shared by the fleet: a tool-loop continuation or a sticky
-- end-user keeps its model on every instance; ids only, expiry in epoch milliseconds.
create table sovra_router_pins (
  key text collate "C" primary key,
  model text not null,
  expires bigint not null
);
create index sovra_router_pins_expires on sovra_router_pins (expires);
`,
  },
  {
    version: 6,
    name: "admission records",
    sql: `
-- A request that reached the providers, from before its first upstream call (written with its
-- rate increment) to its settle (deleted in the settle's statement). record is the
-- request record it becomes if its instance dies first (estimated, status 0, recovered).
create table sovra_admissions (
  id text collate "C" primary key,
  instance text not null,
  record jsonb not null
);
create index sovra_admissions_instance on sovra_admissions (instance);

-- Each gateway process renews its lease; admissions of an instance whose lease ended are settled
-- by any live instance.
create table sovra_instances (
  id text primary key,
  lease_until_ms bigint not null
);
`,
  },
  {
    version: 7,
    name: "single sign-on",
    sql: `
-- OpenID Connect providers (configured by the operator; the client secret stays in the
-- environment), each organization's binding with its role rules, linked identities, the
-- memberships SSO manages, and sign-in flows in progress (state/nonce/PKCE, pending links).
create table sovra_sso_providers (
  id text collate "C" primary key,
  record jsonb not null
);

create table sovra_sso_bindings (
  org_id text collate "C" primary key,
  provider_id text collate "C" not null references sovra_sso_providers (id),
  record jsonb not null
);
create index sovra_sso_bindings_provider on sovra_sso_bindings (provider_id, org_id);

create table sovra_sso_identities (
  issuer text collate "C" not null,
  subject text collate "C" not null,
  user_id text collate "C" not null,
  record jsonb not null,
  primary key (issuer, subject)
);
create index sovra_sso_identities_user on sovra_sso_identities (user_id);

create table sovra_sso_managed (
  org_id text collate "C" not null,
  user_id text collate "C" not null,
  provider_id text collate "C" not null,
  primary key (org_id, user_id)
);

create table sovra_sso_flows (
  hash text primary key,
  expires timestamptz not null,
  record jsonb not null
);
create index sovra_sso_flows_expires on sovra_sso_flows (expires);

-- The provider a dashboard session was signed in through (null: a password).
alter table sovra_sessions add column sso_provider text;
`,
  },
  {
    version: 8,
    name: "invitations",
    sql: `
-- Pending memberships: an invitation to an e-mail, accepted by the account with that e-mail
-- after it signs in (or by creating that account through the link). One per organization and
-- e-mail; the link's token as SHA-256 only.
create table sovra_invitations (
  id text collate "C" primary key,
  org_id text collate "C" not null,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'viewer')),
  token_hash text not null unique,
  invited_by text not null,
  created timestamptz not null,
  expires timestamptz not null,
  unique (org_id, email)
);
create index sovra_invitations_email on sovra_invitations (email, id);
create index sovra_invitations_expires on sovra_invitations (expires);
`,
  },
  {
    version: 9,
    name: "two-factor sign-in, suspension, credit corrections",
    sql: `
-- TOTP enrolments (pending until confirmed) with the SHA-256 of each unused recovery code, and
-- password sign-ins waiting for their second step (the challenge token as SHA-256 only).
create table sovra_totp (
  user_id text collate "C" primary key,
  secret text not null,
  created timestamptz not null,
  enabled_at timestamptz,
  last_step bigint not null default 0,
  recovery_hashes text[] not null default '{}'
);

create table sovra_signin_challenges (
  hash text primary key,
  user_id text not null,
  created timestamptz not null,
  expires timestamptz not null,
  next text not null
);
create index sovra_signin_challenges_expires on sovra_signin_challenges (expires);

-- An owner's "require two-factor sign-in"; an operator's suspension (keys refused meanwhile).
alter table sovra_org_settings add column require_2fa boolean not null default false;
alter table sovra_org_settings add column suspended_at timestamptz;

-- A correction is a ledger entry of its own (possibly negative), never an edit of a grant.
alter table sovra_ledger add column kind text not null default 'grant'
  check (kind in ('grant', 'correction'));
alter table sovra_ledger add column corrects text;
`,
  },
  {
    version: 10,
    name: "cost controls",
    sql: `
-- The prompt cache's daily aggregates: tokens read from and written to provider caches, and
-- what caching saved (requests whose savings were positive) and cost extra (negative).
alter table sovra_usage_daily
  add column cached_tokens bigint not null default 0,
  add column cache_write_tokens bigint not null default 0,
  add column cache_savings_micro_eur bigint not null default 0,
  add column cache_surcharge_micro_eur bigint not null default 0;

-- Key expiry and rotation: a key answers 401 api_key_expired from expires_at on; a rotation
-- links the two keys (the old one expires after its grace period).
alter table sovra_api_keys
  add column expires_at timestamptz,
  add column rotated_from text,
  add column rotated_to text;

-- Spend alerts: each organization's settings (thresholds, webhook, signing secret), the
-- crossings already alerted (one row per crossing: the first instance to insert sends), and
-- the delivery log (no prompt: amounts, ids, statuses).
create table sovra_alert_settings (
  org_id text collate "C" primary key,
  record jsonb not null
);
create table sovra_alert_claims (
  org_id text collate "C" not null,
  episode text collate "C" not null,
  created timestamptz not null,
  primary key (org_id, episode)
);
create index sovra_alert_claims_created on sovra_alert_claims (created);
create table sovra_alert_deliveries (
  id text collate "C" primary key,
  org_id text collate "C" not null,
  status text not null,
  record jsonb not null
);
create index sovra_alert_deliveries_org on sovra_alert_deliveries (org_id, id);
create index sovra_alert_deliveries_pending on sovra_alert_deliveries (id)
  where status = 'pending';

-- Per-key budgets: the most a key may spend per period, and each key's spend per period
-- (d:YYYY-MM-DD, w:<Monday's date>, m:YYYY-MM, t), summed by the settle statement.
alter table sovra_api_keys
  add column budget_micro_eur bigint,
  add column budget_period text check (budget_period in ('day', 'week', 'month', 'total'));
create table sovra_key_spend (
  key_id text collate "C" not null,
  period text collate "C" not null,
  spent_micro_eur bigint not null,
  primary key (key_id, period)
);
`,
  },
  {
    version: 11,
    name: "verified e-mail, session factors",
    sql: `
-- When an account proved it holds its e-mail (a mailed or operator set-password link was used),
-- and the organization whose invitation link or SSO domain rule made it (the only one it may
-- join unverified). Existing accounts: verified when an operator's, or when the password was
-- set after the account was made (a set-password or reset link); an account made through an
-- invitation link (password set in the same instant) or by SSO (no password) is not.
alter table sovra_users add column email_verified_at timestamptz;
alter table sovra_users add column home_org text;
update sovra_users set email_verified_at = created
  where operator
    or (password_hash is not null and password_changed_at is not null
      and password_changed_at <> created);

-- Whether a session's sign-in gave the account's second factor, and the password epoch read
-- before its credentials were checked (null on sessions older than this migration).
alter table sovra_sessions add column second_factor boolean;
alter table sovra_sessions add column password_epoch text;

-- The session that started a pending TOTP enrolment (only it sees and confirms the secret).
alter table sovra_totp add column pending_session text;
`,
  },
];
