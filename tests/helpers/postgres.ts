/**
 * The tests' throwaway PostgreSQL cluster, the same module the benchmark uses:
 * `await using cluster = await startPostgres()` stops it (and removes its dir) at the end of the
 * scope.
 */
import {
  type PgCluster,
  type PgClusterOptions,
  startPostgres as startCluster,
} from "../../scripts/postgres_cluster.ts";

export type { PgCluster };

export async function startPostgres(
  options: PgClusterOptions = {},
): Promise<PgCluster & AsyncDisposable> {
  const cluster = await startCluster(options);
  return Object.assign(cluster, { [Symbol.asyncDispose]: () => cluster.stop() });
}
