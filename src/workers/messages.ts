/** What the primary isolate and a `SOVRA_WORKERS` isolate say to each other (pool.ts). */

export type WorkerRequest =
  | {
    id: number;
    type: "start";
    /** The environment the configuration is read from, with `SOVRA_PORT` the shared port. */
    env: Record<string, string>;
    index: number;
    count: number;
    /** The process's instance limits (`limits/shared_table.ts`), shared with the primary. */
    shared: SharedArrayBuffer;
    /** The process's instance id: one lease and one set of admissions for every isolate. */
    instance: string;
  }
  | { id: number; type: "reload" | "served" | "metrics" | "drain" | "close" };

export type WorkerReply =
  | { id: number; type: "started"; port: number }
  | { id: number; type: "reloaded"; ok: boolean }
  | { id: number; type: "served"; served: number }
  /** `getMetricsAsJSON()` of the isolate's registry, for the primary's `/metrics`. */
  | { id: number; type: "metrics"; json: unknown[] }
  | { id: number; type: "drained"; cut: number; clean: boolean }
  | { id: number; type: "closed" }
  | { id: number; type: "failed"; reason: string };
