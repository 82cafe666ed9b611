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
-- Organization policies (issue 12): one JSON document per organization and per narrowed key;
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
];
