/**
 * Applies the pending migrations in one transaction under an advisory lock, so instances
 * starting together apply each migration once (the others wait, then find nothing to do).
 */
import type { Db } from "./connect.ts";
import { MIGRATIONS } from "./migrations.ts";

/** The advisory lock id of schema changes ("sovra" + 1). */
const MIGRATION_LOCK = 0x736f767261_01;

export interface MigrationResult {
  applied: number[];
  version: number;
}

export async function migrate(sql: Db): Promise<MigrationResult> {
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK}::bigint)`;
    await tx`create table if not exists sovra_schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const rows = await tx<{ version: number }[]>`select version from sovra_schema_migrations`;
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`insert into sovra_schema_migrations (version, name) values (${m.version}, ${m.name})`;
      applied.push(m.version);
    }
    const version = Math.max(0, ...done, ...applied);
    const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    if (version > latest) {
      throw new Error(
        `The database schema is at version ${version}, newer than this gateway's ${latest}: upgrade the gateway.`,
      );
    }
    return { applied, version };
  });
}
