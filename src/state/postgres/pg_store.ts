/**
 * The PostgreSQL implementation of `Store`, for a fleet of instances on one database. Same
 * semantics as the KV one: keys stored as SHA-256 only, balances as two only-incremented
 * counters (granted, spent), settles and rate increments group-committed, retention run by one
 * instance at a time (advisory lock). Writes the database cannot take are kept (settle spill).
 */
import { connect, type Db } from "./connect.ts";
import type { CommitObserver, NewApiKey, Store, StoreHealth } from "../store.ts";
import type { ApiKeyRecord, GateSnapshot, OrgRecord, OrgView, RequestRecord } from "../records.ts";
import { migrate, type MigrationResult } from "./migrate.ts";
import { PgCommitter } from "./pg_commit.ts";
import { SettleSpill } from "./settle_spill.ts";
import { writeBatch } from "./settle_sql.ts";
import { pgPolicyStore } from "./pg_policies.ts";
import type { PolicyStore } from "../policy_store.ts";
import { type Logger, silentLogger } from "../../log.ts";
import type { StateLine, StateTransfer } from "../transfer.ts";
import { exportPg, importPg, isPgEmpty } from "./pg_transfer.ts";
import { inContractOrder } from "./record_order.ts";
import { pgAccountStore } from "./pg_accounts.ts";
import { pgRoutingPolicyStore } from "./pg_routing_policies.ts";
import type { RoutingPolicyStore } from "../routing_policy_store.ts";
import { pgControlStore } from "./pg_control.ts";
import type { AccountStore } from "../account_store.ts";
import type { ControlStore } from "../control_store.ts";

/** The advisory lock id of retention cleanup ("sovra" + 2). */
const RETENTION_LOCK = 0x736f767261_02;

export interface PgStoreOptions {
  commitIntervalMs?: number;
  /**
   * Where settles wait while the database is away (one file per instance); undefined for a
   * process that never settles (the admin CLI), which then never touches a spill file.
   */
  spillPath: string | undefined;
  log?: Logger;
  /** Connections in the pool. */
  max?: number;
  onCommit?: CommitObserver;
}

/** Connects, applies pending migrations, loads the spill file (replaying it) and wraps it. */
export async function openPgStore(url: string, options: PgStoreOptions): Promise<PgStore> {
  const sql = connect(url, options.max);
  try {
    const migration = await migrate(sql);
    const store = new PgStore(sql, options, migration);
    if (options.spillPath !== undefined) await store.loadSpill();
    return store;
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
}

interface OrgRow {
  id: string;
  name: string;
  created: Date;
  granted: bigint;
  spent: bigint;
}

interface KeyRow {
  id: string;
  org_id: string;
  name: string | null;
  rpm: number;
  hash: string;
  prefix: string;
  created: Date;
  revoked: boolean;
  revoked_at: Date | null;
}

export class PgStore implements Store, StateTransfer {
  readonly #writer: PgCommitter;
  readonly #spill: SettleSpill;

  constructor(
    readonly sql: Db,
    options: PgStoreOptions,
    readonly migration: MigrationResult,
  ) {
    const log = options.log ?? silentLogger;
    this.#spill = new SettleSpill(
      options.spillPath ?? "",
      (records) => writeBatch(sql, records, []),
      log,
    );
    this.#writer = new PgCommitter(
      sql,
      this.#spill,
      log,
      options.commitIntervalMs ?? 0,
      options.onCommit,
    );
    this.#policies = pgPolicyStore(sql);
    this.getOrgPolicy = this.#policies.getOrgPolicy;
    this.putOrgPolicy = this.#policies.putOrgPolicy;
    this.getKeyPolicy = this.#policies.getKeyPolicy;
    this.putKeyPolicy = this.#policies.putKeyPolicy;
    this.listPolicyAudit = this.#policies.listPolicyAudit;
    this.controlPlane = { accounts: pgAccountStore(sql), control: pgControlStore(sql) };
    this.routingPolicies = pgRoutingPolicyStore(sql);
  }

  readonly #policies: PolicyStore;
  readonly getOrgPolicy: PolicyStore["getOrgPolicy"];
  readonly putOrgPolicy: PolicyStore["putOrgPolicy"];
  readonly getKeyPolicy: PolicyStore["getKeyPolicy"];
  readonly putKeyPolicy: PolicyStore["putKeyPolicy"];
  readonly listPolicyAudit: PolicyStore["listPolicyAudit"];

  /** Smart-router policies per organization. */
  readonly routingPolicies: RoutingPolicyStore;

  /** The dashboard's areas (accounts, ledger, audit, settings) on the same pool. */
  readonly controlPlane: { accounts: AccountStore; control: ControlStore };

  loadSpill(): Promise<number> {
    return this.#spill.load();
  }

  async createOrg(org: OrgRecord, creditsMicroEur: bigint): Promise<OrgView> {
    await this.sql.begin(async (tx) => {
      const inserted = await tx`
        insert into sovra_orgs (id, name, created) values (${org.id}, ${org.name}, ${org.created})
        on conflict (id) do nothing returning id`;
      if (inserted.length === 0) throw new Error(`Organization '${org.id}' already exists.`);
      await tx`
        insert into sovra_credits (org_id, granted_micro_eur) values (${org.id}, ${creditsMicroEur})
        on conflict (org_id) do update
          set granted_micro_eur = sovra_credits.granted_micro_eur + excluded.granted_micro_eur`;
    });
    return (await this.getOrg(org.id))!;
  }

  async getOrg(orgId: string): Promise<OrgView | undefined> {
    const [row] = await this.sql<OrgRow[]>`
      select o.id, o.name, o.created, coalesce(c.granted_micro_eur, 0) as granted,
        coalesce(c.spent_micro_eur, 0) as spent
      from sovra_orgs o left join sovra_credits c on c.org_id = o.id
      where o.id = ${orgId}`;
    return row ? orgView(row) : undefined;
  }

  async listOrgs(): Promise<OrgView[]> {
    const rows = await this.sql<OrgRow[]>`
      select o.id, o.name, o.created, coalesce(c.granted_micro_eur, 0) as granted,
        coalesce(c.spent_micro_eur, 0) as spent
      from sovra_orgs o left join sovra_credits c on c.org_id = o.id
      order by o.id`;
    return rows.map(orgView);
  }

  async topUp(orgId: string, microEur: bigint): Promise<bigint> {
    const [row] = await this.sql<{ balance: bigint }[]>`
      insert into sovra_credits (org_id, granted_micro_eur) values (${orgId}, ${microEur})
      on conflict (org_id) do update
        set granted_micro_eur = sovra_credits.granted_micro_eur + excluded.granted_micro_eur
      returning granted_micro_eur - spent_micro_eur as balance`;
    return row!.balance;
  }

  async createApiKey(key: NewApiKey): Promise<ApiKeyRecord> {
    const record: ApiKeyRecord = {
      ...key,
      created: new Date().toISOString(),
      revoked: false,
      revoked_at: null,
    };
    const inserted = await this.sql`
      insert into sovra_api_keys (id, org_id, name, rpm, hash, prefix, created)
      values (${key.id}, ${key.org}, ${key.name}, ${key.rpm}, ${key.hash}, ${key.prefix},
        ${record.created})
      on conflict do nothing returning id`;
    if (inserted.length === 0) throw new Error("The API key collides with an existing one.");
    return record;
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.sql<KeyRow[]>`select * from sovra_api_keys where hash = ${hash}`;
    return row ? keyRecord(row) : undefined;
  }

  async listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.sql<KeyRow[]>`
      select * from sovra_api_keys where org_id = ${orgId} order by id`;
    return rows.map(keyRecord);
  }

  async revokeApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const now = new Date().toISOString();
    const [row] = await this.sql<KeyRow[]>`
      update sovra_api_keys
      set revoked_at = case when revoked then revoked_at else ${now}::timestamptz end,
        revoked = true
      where id = ${keyId} returning *`;
    return row ? keyRecord(row) : undefined;
  }

  async readGate(keyId: string, orgId: string, minute: number): Promise<GateSnapshot> {
    const [row] = await this.sql<{ current: bigint; previous: bigint; balance: bigint }[]>`
      select
        coalesce((select requests from sovra_rate_buckets
          where minute = ${minute} and key_id = ${keyId}), 0) as current,
        coalesce((select requests from sovra_rate_buckets
          where minute = ${minute - 1} and key_id = ${keyId}), 0) as previous,
        coalesce((select granted_micro_eur - spent_micro_eur from sovra_credits
          where org_id = ${orgId}), 0) as balance`;
    return {
      rateCurrent: Number(row!.current),
      ratePrevious: Number(row!.previous),
      balanceMicroEur: BigInt(row!.balance),
    };
  }

  countRequest(keyId: string, minute: number, onSent?: () => void): Promise<void> {
    return this.#writer.write({ kind: "rate", rate: { minute, keyId, count: 1 } }, onSent);
  }

  settle(record: RequestRecord, onSent?: () => void): Promise<void> {
    return this.#writer.write({ kind: "settle", record }, onSent);
  }

  async listRequests(orgId: string, limit: number): Promise<RequestRecord[]> {
    const rows = await this.sql<{ record: RequestRecord }[]>`
      select record from sovra_requests where org_id = ${orgId} order by id desc limit ${limit}`;
    return rows.map((r) => inContractOrder(r.record));
  }

  async dailyUsage(orgId: string, day: string): Promise<Record<string, number>> {
    const [row] = await this.sql<Record<string, bigint>[]>`
      select requests, cost_micro_eur, prompt_tokens, completion_tokens, audio_seconds, characters
      from sovra_usage_daily where org_id = ${orgId} and day = ${day}::date`;
    const out: Record<string, number> = {};
    // As on KV, a field nothing was added to is absent.
    for (const [field, value] of Object.entries(row ?? {})) {
      if (value !== 0n) out[field] = Number(value);
    }
    return out;
  }

  /** One instance at a time: another holding the lock means this run has nothing to do. */
  async cleanup(
    before: Date,
    beforeMinute: number,
  ): Promise<{ requests: number; rateBuckets: number }> {
    return await this.sql.begin(async (tx) => {
      const [lock] = await tx<{ ok: boolean }[]>`
        select pg_try_advisory_xact_lock(${RETENTION_LOCK}::bigint) as ok`;
      if (!lock?.ok) return { requests: 0, rateBuckets: 0 };
      const requests = await tx`delete from sovra_requests where created < ${before}`;
      const buckets = await tx`delete from sovra_rate_buckets where minute < ${beforeMinute}`;
      // Expired dashboard sessions, set-password tokens and failed-login windows go too.
      await tx`delete from sovra_sessions where expires < now()`;
      await tx`delete from sovra_password_tokens where expires < now()`;
      await tx`delete from sovra_login_failures where forget_after < now()`;
      return { requests: requests.count, rateBuckets: buckets.count };
    });
  }

  exportState(): AsyncIterable<StateLine> {
    return exportPg(this.sql);
  }

  importLines(lines: StateLine[]): Promise<void> {
    return importPg(this.sql, lines);
  }

  isEmpty(): Promise<boolean> {
    return isPgEmpty(this.sql);
  }

  /** What health checks and logs report about the database and the spill file. */
  health(): StoreHealth {
    const h = this.#writer.health;
    return {
      backend: "postgres",
      reachable: h.reachable && this.#spill.size === 0,
      spilled_settles: this.#spill.size,
      ...(h.lastError ? { last_error: h.lastError } : {}),
    };
  }

  /** Resolves once every queued write is committed or spilled (tests, shutdown). */
  flushed(): Promise<void> {
    return this.#writer.flushed();
  }

  /** Resolves once the spill file is empty (tests). */
  spillDrained(timeoutMs?: number): Promise<void> {
    return this.#spill.drained(timeoutMs);
  }

  async close(): Promise<void> {
    await this.#writer.close();
    await this.#spill.stop();
    await this.sql.end({ timeout: 5 });
  }
}

function orgView(row: OrgRow): OrgView {
  return {
    id: row.id,
    name: row.name,
    created: row.created.toISOString(),
    balance_micro_eur: Number(row.granted - row.spent),
    granted_micro_eur: Number(row.granted),
    spent_micro_eur: Number(row.spent),
  };
}

function keyRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    org: row.org_id,
    name: row.name,
    rpm: row.rpm,
    hash: row.hash,
    prefix: row.prefix,
    created: row.created.toISOString(),
    revoked: row.revoked,
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}
