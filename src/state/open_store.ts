/**
 * Picks the state backend: PostgreSQL when `SOVRA_DATABASE_URL` is set, Deno KV otherwise.
 * Says which, and where, in one log line (never the password).
 */
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { CommitObserver, Store } from "./store.ts";
import type { BackendSignals } from "./guarded_store.ts";
import { openKvStore } from "./kv/kv_store.ts";
import { openPgStore } from "./postgres/pg_store.ts";
import { describeUrl } from "./postgres/connect.ts";

export async function openStore(
  config: Pick<Config, "databaseUrl" | "kvPath" | "spillPath" | "commitIntervalMs">,
  log: Logger,
  onCommit?: CommitObserver,
): Promise<Store & BackendSignals> {
  if (config.databaseUrl) {
    const store = await openPgStore(config.databaseUrl, {
      commitIntervalMs: config.commitIntervalMs,
      spillPath: config.spillPath,
      log,
      ...(onCommit ? { onCommit } : {}),
    });
    log.info("state backend", {
      backend: "postgres",
      ...describeUrl(config.databaseUrl),
      schema_version: store.migration.version,
      migrations_applied: store.migration.applied.join(",") || "none",
      spill: config.spillPath,
    });
    return store;
  }
  const store = await openKvStore(config.kvPath, config.commitIntervalMs, onCommit);
  log.info("state backend", { backend: "kv", path: config.kvPath });
  return store;
}
