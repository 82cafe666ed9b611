/** The tests' throwaway PostgreSQL cluster: the same module the benchmark uses. */
export { type PgCluster, startPostgres } from "../../scripts/postgres_cluster.ts";
