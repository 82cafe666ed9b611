/**
 * One `SOVRA_WORKERS` isolate (a Web Worker of the gateway process): its own dependencies
 * (store connection, catalog, key and gate caches) and its own API listener on the shared
 * port. No background jobs: the primary isolate runs those. Driven by messages from
 * `pool.ts` (start, reload, served, metrics, drain, close); every answer carries the request's `id`.
 */
import { configFromEnv } from "../config.ts";
import { type Gateway, startGateway } from "../gateway.ts";
import { createLogger, errorMessage } from "../log.ts";
import type { WorkerReply, WorkerRequest } from "./messages.ts";
import { keepServingOnStrayRejections } from "../lifecycle/stray_rejections.ts";

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply): void;
};
let gateway: Gateway | undefined;

async function handle(message: WorkerRequest): Promise<WorkerReply> {
  switch (message.type) {
    case "start": {
      const config = configFromEnv(message.env);
      const log = createLogger(config.logLevel);
      keepServingOnStrayRejections(log);
      gateway = await startGateway(config, {
        log,
        worker: { index: message.index, count: message.count },
        shared: { buffer: message.shared, primary: false, isolates: message.count },
        instance: message.instance,
      });
      return { id: message.id, type: "started", port: gateway.port };
    }
    case "reload":
      return { id: message.id, type: "reloaded", ok: (await gateway?.reloadCatalog()) ?? false };
    case "metrics":
      return {
        id: message.id,
        type: "metrics",
        json: (await gateway?.deps.telemetry.metricsJson()) ?? [],
      };
    case "served":
      return { id: message.id, type: "served", served: gateway?.served ?? 0 };
    case "drain": {
      const result = await gateway?.drain();
      return {
        id: message.id,
        type: "drained",
        cut: result?.cut ?? 0,
        clean: result?.clean ?? true,
      };
    }
    case "close":
      await gateway?.close();
      return { id: message.id, type: "closed" };
  }
}

scope.onmessage = (event) => {
  const message = event.data;
  handle(message).then(
    (reply) => scope.postMessage(reply),
    (error) => scope.postMessage({ id: message.id, type: "failed", reason: errorMessage(error) }),
  );
};
