/** The database connection as the store uses it: int8 read as bigint, notices quiet. */
import postgres, { type Sql } from "postgres";

export type Db = Sql<{ bigint: bigint }>;

export function connect(url: string, max = 10): Db {
  return postgres(url, {
    max,
    types: { bigint: postgres.BigInt },
    onnotice: () => {},
    connect_timeout: 5,
    idle_timeout: 60,
  });
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
