/**
 * `SOVRA_WORKERS`: the request API served by that many isolates of one process on one port.
 * The primary isolate (this one) runs the full gateway: the background jobs (retention
 * cleanup, the spill replay of its store, start-up migrations), `/metrics` (summed over every
 * isolate) and the dashboard beside it. Each further isolate is a Web Worker (`api_worker.ts`) with its own store
 * connection, catalog and gate snapshot, listening on the same port with `SO_REUSEPORT`, so
 * the kernel spreads connections across them (Linux; elsewhere the extra listeners fail to
 * bind and the start stops). The isolates are one instance: they count a key's rate, an
 * organization's debits and holds and the transcription slots in one table handed to each at
 * start (`limits/shared_table.ts`), and admit under one instance id and lease.
 */
import { type Config, configFromEnv } from "../config.ts";
import { type Gateway, type GatewayOptions, startGateway } from "../gateway.ts";
import type { DrainResult } from "../lifecycle/drain.ts";
import type { Logger } from "../log.ts";
import type { WorkerReply, WorkerRequest } from "./messages.ts";
import { adoptOrphanedSpills } from "./spill_handover.ts";
import { SharedTable } from "../limits/shared_table.ts";
import { randomId } from "../util/ids.ts";

export interface WorkerGateway extends Gateway {
  /** Isolates serving the API (1: the primary alone). */
  readonly workers: number;
  /** Requests each isolate's API server was handed, primary first. */
  servedPerWorker(): Promise<number[]>;
}

/**
 * The isolates a configuration gets: `SOVRA_WORKERS`, except with an in-memory KV store,
 * which one isolate cannot share with another (every isolate would bill its own copy).
 */
export function effectiveWorkers(config: Config): number {
  if (config.databaseUrl === undefined && config.kvPath === ":memory:") return 1;
  return config.workers;
}

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

/** A Web Worker answering requests by id. */
class WorkerHandle {
  #worker: Worker;
  #next = 1;
  #waiting = new Map<number, (reply: WorkerReply) => void>();

  constructor(onCrash: (reason: string) => void) {
    this.#worker = new Worker(new URL("./api_worker.ts", import.meta.url), { type: "module" });
    this.#worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      const resolve = this.#waiting.get(event.data.id);
      this.#waiting.delete(event.data.id);
      resolve?.(event.data);
    };
    this.#worker.onerror = (event) => {
      event.preventDefault();
      const reason = event.message ?? "worker error";
      for (const resolve of this.#waiting.values()) resolve({ id: 0, type: "failed", reason });
      this.#waiting.clear();
      onCrash(reason);
    };
  }

  async ask<T extends WorkerReply["type"]>(
    request: WithoutId<WorkerRequest>,
    expect: T,
  ): Promise<Extract<WorkerReply, { type: T }>> {
    const id = this.#next++;
    const reply = await new Promise<WorkerReply>((resolve) => {
      this.#waiting.set(id, resolve);
      this.#worker.postMessage({ ...request, id } as WorkerRequest);
    });
    if (reply.type === "failed") throw new Error(reply.reason);
    if (reply.type !== expect) throw new Error(`worker answered ${reply.type}, not ${expect}`);
    return reply as Extract<WorkerReply, { type: T }>;
  }

  terminate(): void {
    this.#worker.terminate();
  }
}

/**
 * Starts the primary gateway from `env` (read with `configFromEnv`), then `SOVRA_WORKERS − 1`
 * worker isolates on its port. A worker that fails to start stops the whole start.
 */
export async function startGatewayWorkers(
  env: Record<string, string>,
  options: GatewayOptions & { log: Logger },
): Promise<WorkerGateway> {
  const config = configFromEnv(env);
  const count = effectiveWorkers(config);
  const log = options.log;
  if (count < config.workers) {
    log.warn("SOVRA_WORKERS ignored: an in-memory KV store cannot be shared; one isolate", {
      workers: config.workers,
    });
  }
  // Spill files of isolates this start does not have go to the primary's (it replays them).
  if (config.databaseUrl !== undefined) await adoptOrphanedSpills(config.spillPath, count, log);
  // One instance: every isolate counts in the same limits and admits under the same id.
  const shared = SharedTable.create().buffer;
  const instance = randomId("inst_", 12);
  const primary = await startGateway(config, {
    ...options,
    signals: false,
    worker: { index: 0, count },
    shared: { buffer: shared, primary: true, isolates: count },
    instance,
  });
  const handles: WorkerHandle[] = [];
  let stopping = false;
  const onCrash = (reason: string) => {
    if (!stopping) log.error("worker isolate failed", { reason });
  };
  try {
    // Each further isolate binds the primary's port (SOVRA_PORT may have been 0) and, with
    // PostgreSQL, keeps its own spill file beside the primary's.
    await Promise.all(
      Array.from({ length: count - 1 }, async (_, i) => {
        const handle = new WorkerHandle(onCrash);
        handles.push(handle);
        await handle.ask({
          type: "start",
          env: {
            ...env,
            SOVRA_PORT: String(primary.port),
            SOVRA_SPILL_PATH: `${config.spillPath}.worker-${i + 1}`,
          },
          index: i + 1,
          count,
          shared,
          instance,
        }, "started");
      }),
    );
  } catch (error) {
    stopping = true;
    await Promise.all(handles.map((h) => h.ask({ type: "close" }, "closed").catch(() => {})));
    for (const handle of handles) handle.terminate();
    await primary.close();
    throw error;
  }
  if (count > 1) log.info("api served by worker isolates", { workers: count });
  // One `/metrics` scrape (the primary's listener) covers every isolate.
  if (handles.length > 0) {
    primary.deps.telemetry.others = () =>
      Promise.all(handles.map((h) => h.ask({ type: "metrics" }, "metrics").then((r) => r.json)));
  }

  const reloadAll = async () => {
    const results = await Promise.all([
      primary.reloadCatalog(),
      ...handles.map((h) => h.ask({ type: "reload" }, "reloaded").then((r) => r.ok, () => false)),
    ]);
    return results.every(Boolean);
  };
  const onHup = () => void reloadAll();
  if (options.signals) Deno.addSignalListener("SIGHUP", onHup);
  const finish = () => {
    stopping = true;
    if (options.signals) Deno.removeSignalListener("SIGHUP", onHup);
  };

  return {
    deps: primary.deps,
    url: primary.url,
    port: primary.port,
    metricsPort: primary.metricsPort,
    workers: count,
    get served() {
      return primary.served;
    },
    async servedPerWorker() {
      const others = await Promise.all(
        handles.map((h) => h.ask({ type: "served" }, "served").then((r) => r.served)),
      );
      return [primary.served, ...others];
    },
    async drain(): Promise<DrainResult> {
      finish();
      const results = await Promise.all([
        primary.drain(),
        ...handles.map((h) => h.ask({ type: "drain" }, "drained")),
      ]);
      for (const handle of handles) handle.terminate();
      return {
        cut: results.reduce((sum, r) => sum + r.cut, 0),
        clean: results.every((r) => r.clean),
      };
    },
    reloadCatalog: reloadAll,
    serveBeside: (handler, options) => primary.serveBeside(handler, options),
    async close() {
      finish();
      await Promise.all([
        primary.close(),
        ...handles.map((h) => h.ask({ type: "close" }, "closed").catch(() => {})),
      ]);
      for (const handle of handles) handle.terminate();
    },
  };
}
