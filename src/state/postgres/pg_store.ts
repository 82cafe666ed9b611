/**
 * The PostgreSQL implementation of `Store`, for a fleet of instances on one database: every
 * area (`pg_orgs.ts`, `pg_api_keys.ts`, `pg_metering.ts`, `pg_request_log.ts`,
 * `pg_policies.ts`, `pg_routing_policies.ts`, `pg_router_pins.ts`, `pg_transfer.ts`,
 * `pg_admissions.ts`, and the dashboard's
 * `pg_accounts.ts` and `pg_control.ts`) over one connection pool and one group committer. Same
 * semantics as the KV one; writes the database cannot take are kept (`settle_spill.ts`).
 */
import { type Db, type ReplaceablePool, replaceablePool } from "./connect.ts";
import type { CommitObserver, Store } from "../store.ts";
import { migrate, type MigrationResult } from "./migrate.ts";
import { PgCommitter } from "./pg_commit.ts";
import { SettleSpill } from "./settle_spill.ts";
import { isDeadConnection, isTransient, onLiveConnection, writeBatch } from "./settle_sql.ts";
import type { BackendSignals } from "../guarded_store.ts";
import { type Logger, silentLogger } from "../../log.ts";
import type { StateTransfer } from "../transfer.ts";
import type { RoutingPolicyStore } from "../routing_policy_store.ts";
import type { RouterPinStore } from "../router_pin_store.ts";
import type { ControlPlaneStores } from "../kv/control_plane.ts";
import { pgOrgStore } from "./pg_orgs.ts";
import { pgApiKeyStore } from "./pg_api_keys.ts";
import { pgMeteringStore } from "./pg_metering.ts";
import { pgRequestLogStore } from "./pg_request_log.ts";
import { pgPolicyStore } from "./pg_policies.ts";
import { pgRoutingPolicyStore } from "./pg_routing_policies.ts";
import { pgAlertStore } from "./pg_alerts.ts";
import type { AlertStore } from "../alert_store.ts";
import { pgRouterPinStore } from "./pg_router_pins.ts";
import { pgTransfer } from "./pg_transfer.ts";
import { pgAccountStore } from "./pg_accounts.ts";
import { pgControlStore } from "./pg_control.ts";
import { pgTwoFactorStore } from "./pg_two_factor.ts";
import { pgSsoStore } from "./pg_sso.ts";
import { RevocationListener } from "./pg_revocations.ts";
import { pgAdmissionStore } from "./pg_admissions.ts";

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

/** The PostgreSQL store; `sql` is exposed for tests that inspect rows. */
export interface PgStore extends Store, StateTransfer, BackendSignals {
  readonly sql: Db;
  /** What the start applied (logged in the start line, printed by `admin migrate`). */
  readonly migration: MigrationResult;
  readonly routingPolicies: RoutingPolicyStore;
  readonly routerPins: RouterPinStore;
  readonly alerts: AlertStore;
  /** The dashboard's areas (accounts, ledger, audit, settings, SSO) on the same pool. */
  readonly controlPlane: ControlPlaneStores;
  /** Resolves once the spill file is empty (tests). */
  spillDrained(timeoutMs?: number): Promise<void>;
}

/** Connects, applies pending migrations, loads the spill file (replaying it) and wraps it. */
export async function openPgStore(url: string, options: PgStoreOptions): Promise<PgStore> {
  const pool = replaceablePool(url, options.max);
  const sql = pool.sql;
  try {
    const migration = await migrate(sql);
    const log = options.log ?? silentLogger;
    const spill = new SettleSpill(
      options.spillPath ?? "",
      (records) => onLiveConnection(() => writeBatch(sql, records, [])),
      log,
    );
    const writer = new PgCommitter(
      sql,
      spill,
      log,
      options.commitIntervalMs ?? 0,
      options.onCommit,
    );
    if (options.spillPath !== undefined) await spill.load();
    return createPgStore(pool, migration, writer, spill, new RevocationListener(url, log));
  } catch (error) {
    await pool.end({ timeout: 1 });
    throw error;
  }
}

function createPgStore(
  pool: ReplaceablePool,
  migration: MigrationResult,
  writer: PgCommitter,
  spill: SettleSpill,
  revocations: RevocationListener,
): PgStore {
  const sql = pool.sql;
  return {
    sql,
    migration,
    ...pgOrgStore(sql),
    ...pgApiKeyStore(sql, revocations),
    ...pgMeteringStore(sql, writer),
    ...pgRequestLogStore(sql),
    ...pgPolicyStore(sql),
    ...pgTransfer(sql),
    ...pgAdmissionStore(sql),
    routingPolicies: pgRoutingPolicyStore(sql),
    routerPins: pgRouterPinStore(sql),
    alerts: pgAlertStore(sql),
    controlPlane: {
      accounts: pgAccountStore(sql),
      control: pgControlStore(sql),
      sso: pgSsoStore(sql),
      twoFactor: pgTwoFactorStore(sql),
    },
    /**
     * What health checks and logs report about the database and the spill file. Reachable is
     * the database alone: settles still replaying from the spill are reported beside it, so
     * `/healthz` says `ok` as soon as the database answers, however long the outage's backlog.
     */
    health() {
      const h = writer.health;
      return {
        backend: "postgres",
        reachable: h.reachable,
        spilled_settles: spill.size,
        ...(h.lastError ? { last_error: h.lastError } : {}),
      };
    },
    onWriteFailure(listener) {
      writer.failures.push(listener);
    },
    onWriteSuccess(listener) {
      writer.successes.push(listener);
    },
    unavailable() {
      // A fresh pool: the old one's backlog and dead connections go with it.
      pool.replace();
    },
    recovered() {
      // And again now: what the outage's pool queued (postgres.js waits for a connection
      // without a bound) and the connections it opened while the server went down go too.
      pool.replace();
      writer.reachable();
      spill.wake();
    },
    isOutage: isTransient,
    retryable: isDeadConnection,
    /** Resolves once every queued write is committed or spilled (tests, shutdown). */
    flushed: () => writer.flushed(),
    spillDrained: (timeoutMs) => spill.drained(timeoutMs),
    async close() {
      await writer.close();
      await spill.stop();
      await revocations.close();
      await pool.end({ timeout: 5 });
    },
  };
}
