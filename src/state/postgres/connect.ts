/** The database connection as the store uses it: int8 read as bigint, notices quiet. */
import postgres, { type Sql } from "postgres";

export type Db = Sql<{ bigint: bigint }>;

/**
 * Seconds before a pooled connection that failed is tried again. postgres.js's default grows as
 * 3ⁿ/100 s, up to 20 s, with the failures its pool has seen: after an outage of a few seconds the
 * first query after the database's return (the circuit's probe included) waited seconds for its
 * connection. A quarter to half a second keeps the attempts cheap while the database is away (one
 * per waiting connection) and finds it again at once.
 */
const reconnectBackoff = () => 0.25 + Math.random() / 4;

export function connect(url: string, max = 10): Db {
  return postgres(url, {
    max,
    types: { bigint: postgres.BigInt },
    onnotice: () => {},
    connect_timeout: 5,
    idle_timeout: 60,
    backoff: reconnectBackoff,
  });
}

/**
 * A pool that can be replaced under the same `sql`: every store area keeps the function it was
 * given, and `replace` points it at a fresh pool while the old one is ended at once (its queued
 * and in-flight queries fail). Used when the database goes away: postgres.js queues queries
 * behind its reconnect attempts (measured: a query issued during an outage answered 57P01
 * 14 s later), so the old pool's backlog — and its connections the server closed — never
 * reach a request after the outage.
 */
export interface ReplaceablePool {
  readonly sql: Db;
  replace(): void;
  end(options?: { timeout?: number }): Promise<void>;
}

export function replaceablePool(url: string, max = 10): ReplaceablePool {
  let current = connect(url, max);
  const sql = new Proxy(current, {
    apply: (_target, thisArg, args) => Reflect.apply(current, thisArg, args),
    get: (_target, property) => {
      const value = Reflect.get(current, property, current);
      return typeof value === "function" ? value.bind(current) : value;
    },
  }) as Db;
  return {
    sql,
    replace() {
      const old = current;
      current = connect(url, max);
      void old.end({ timeout: 0 }).catch(() => {});
    },
    end: (options) => current.end(options),
  };
}

/** Where a URL points, for logs: host, port and database, never the user or password. */
export function describeUrl(url: string): { host: string; database: string } {
  try {
    const u = new URL(url);
    return { host: u.port ? `${u.hostname}:${u.port}` : u.hostname, database: u.pathname.slice(1) };
  } catch {
    return { host: "(unparsable URL)", database: "" };
  }
}
