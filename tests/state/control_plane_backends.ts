/**
 * The control-plane areas on both backends for the contract suites: Deno KV in memory and
 * PostgreSQL on a throwaway cluster (a fresh database per `open`). Disposing a backend stops
 * what it started.
 */
import type { ControlPlaneStores } from "../../src/state/kv/control_plane.ts";
import { kvControlPlane } from "../../src/state/kv/control_plane.ts";
import { createKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import type { Store } from "../../src/state/store.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";

export interface Opened {
  store: Store;
  areas: ControlPlaneStores;
}

export interface Backend extends AsyncDisposable {
  open(): Promise<Opened>;
}

export function kvBackend(): Promise<Backend> {
  return Promise.resolve({
    open: async () => {
      const store = createKvStore(await Deno.openKv(":memory:"));
      return { store, areas: kvControlPlane(store.kv) };
    },
    [Symbol.asyncDispose]: () => Promise.resolve(),
  });
}

export async function pgBackend(): Promise<Backend> {
  const cluster: PgCluster = await startPostgres();
  return {
    open: async () => {
      const store = await openPgStore(await cluster.database(), { spillPath: undefined });
      return { store, areas: store.controlPlane };
    },
    [Symbol.asyncDispose]: () => cluster.stop(),
  };
}
