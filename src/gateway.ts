/**
 * A running gateway from a config: the dependencies built once (`compose_deps.ts`), the API
 * app served on them, SIGHUP and retention housekeeping. Used by `main.ts`, the demo and the
 * tests. Another server of the same process (the dashboard) is served with `serve` from the
 * same `deps`.
 */
import type { Config } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { closeDependencies, composeDependencies, type ComposeOptions } from "./compose_deps.ts";
import { createApp } from "./app.ts";
import { describeBindError } from "./http/port_in_use.ts";
import { serveListener } from "./lifecycle/listener.ts";
import type { Logger } from "./log.ts";
import { startRetentionCleanup } from "./state/retention.ts";
import { startAdmissionRecovery } from "./state/admission_recovery.ts";
import { missingCredentials } from "./catalog/credential_check.ts";
import { lifecycleNotices } from "./catalog/lifecycle.ts";
import { DIALECTS } from "./providers/registry.ts";
import { localBaseUrls } from "./catalog/base_url_check.ts";
import { metricsHandler } from "./telemetry/metrics_server.ts";
import { drain, type DrainResult } from "./lifecycle/drain.ts";

export interface Gateway {
  deps: AppDeps;
  url: string;
  port: number;
  /** Port of the `/metrics` server, when `SOVRA_METRICS_PORT` is set. */
  metricsPort: number | undefined;
  /** Requests this isolate's API server has been handed (tests of `SOVRA_WORKERS`). */
  readonly served: number;
  /**
   * Graceful shutdown (SIGTERM/SIGINT): unready, stop accepting, let requests and streams end
   * up to `SOVRA_DRAIN_MS`, cut what is left (billed), flush settles, close the store.
   */
  drain(): Promise<DrainResult>;
  /** Reloads the catalog from disk (SIGHUP). */
  reloadCatalog(): Promise<boolean>;
  /**
   * Serves another listener of this process (the dashboard) as the API is served (a listener
   * that survives accept errors; lifecycle/listener.ts).
   */
  serveBeside(
    handler: (request: Request) => Response | Promise<Response>,
    options: { port: number; portVariable: string },
  ): ListeningServer;
  close(): Promise<void>;
}

export interface GatewayOptions extends ComposeOptions {
  /** Handle SIGHUP (the real process only). */
  signals?: boolean;
  /**
   * One of `SOVRA_WORKERS` isolates (src/workers/): the API port is shared (`SO_REUSEPORT`),
   * the connection ceiling is this isolate's share, and only the primary (`index` 0) runs
   * the background jobs (retention cleanup) and the `/metrics` listener.
   */
  worker?: { index: number; count: number };
}

/** One HTTP server for one app. */
export interface ListeningServer {
  port: number;
  url: string;
  shutdown(): Promise<void>;
}

/**
 * Listens on `host:port` (lifecycle/listener.ts: `Deno.serve`, listening again after an accept
 * error); a port in use names the variable that sets it (`portVariable`).
 */
export function serve(
  handler: (
    request: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ) => Response | Promise<Response>,
  options: {
    port: number;
    host: string;
    portVariable: string;
    log: Logger;
    /** Share the port with the other `SOVRA_WORKERS` isolates (`SO_REUSEPORT`, Linux). */
    reusePort?: boolean;
  },
): ListeningServer {
  let server: { addr: Deno.NetAddr; shutdown(): Promise<void> };
  try {
    server = serveListener({
      port: options.port,
      hostname: options.host,
      log: options.log,
      ...(options.reusePort ? { reusePort: true } : {}),
    }, handler);
  } catch (error) {
    throw describeBindError(error, options.portVariable, options.host, options.port);
  }
  const port = server.addr.port;
  return { port, url: `http://${options.host}:${port}`, shutdown: () => server.shutdown() };
}

export async function startGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  const deps = await composeDependencies(config, options);
  const { catalog, log, store } = deps;
  const warnCatalog = () => {
    for (const m of missingCredentials(catalog.current, config.secret, DIALECTS)) {
      log.warn("provider credential not set; its routes will fail over", { ...m });
    }
    const current = catalog.current;
    for (const notice of lifecycleNotices(current.models, current.today())) {
      log.warn("catalog lifecycle: " + notice.message, { state: notice.state });
    }
    if (config.allowLocalUpstreams) return;
    for (const local of localBaseUrls(catalog.current)) {
      log.warn("provider base_url is loopback or link-local; check the catalog", { ...local });
    }
  };
  warnCatalog();
  let api: ListeningServer | undefined;
  let metrics: ListeningServer | undefined;
  const worker = options.worker;
  const primary = worker === undefined || worker.index === 0;
  const app = createApp(deps);
  let handed = 0;
  // Every isolate is an instance of its own (its admissions, its lease), so each renews its
  // lease; the primary alone settles what stopped instances left. The lease is committed before
  // the API accepts, so no other instance's recovery pass can take this one for dead while it
  // serves its first requests (review item 5).
  const recovery = startAdmissionRecovery(
    store,
    deps.instance,
    config.instanceLeaseMs,
    log,
    primary,
  );
  try {
    await recovery.leased;
    api = serve((request, info) => {
      handed++;
      return app.fetch(request, info);
    }, {
      port: config.port,
      host: config.host,
      portVariable: "SOVRA_PORT",
      log,
      ...(worker !== undefined && worker.count > 1 ? { reusePort: true } : {}),
    });
    if (config.metricsPort !== undefined && primary) {
      metrics = serve(metricsHandler(deps.telemetry), {
        port: config.metricsPort,
        host: config.host,
        portVariable: "SOVRA_METRICS_PORT",
        log,
      });
    }
  } catch (error) {
    await api?.shutdown();
    await recovery.stop();
    await closeDependencies(deps).catch(() => {});
    throw error;
  }
  const served = api;
  // Background jobs run once per process, in the primary isolate.
  const cleanup = primary ? startRetentionCleanup(store, config.retentionDays, log) : { stop() {} };
  await recovery.started;

  const onHup = () => void catalog.reload().then((ok) => ok && warnCatalog());
  if (options.signals) Deno.addSignalListener("SIGHUP", onHup);

  return {
    deps,
    port: served.port,
    url: served.url,
    metricsPort: metrics?.port,
    get served() {
      return handed;
    },
    async drain() {
      if (options.signals) Deno.removeSignalListener("SIGHUP", onHup);
      const result = await drain({
        lifecycle: deps.lifecycle,
        log,
        noticeMs: config.drainNoticeMs,
        drainMs: config.drainMs,
        stopAccepting: () => served.shutdown(),
      });
      cleanup.stop();
      await recovery.stop();
      await metrics?.shutdown();
      await closeDependencies(deps);
      log.info("drained: settles flushed, store closed", { cut: result.cut });
      return result;
    },
    reloadCatalog: () => catalog.reload(),
    serveBeside: (handler, options) => serve(handler, { ...options, host: config.host, log }),
    async close() {
      if (options.signals) Deno.removeSignalListener("SIGHUP", onHup);
      cleanup.stop();
      await recovery.stop();
      await served.shutdown();
      await metrics?.shutdown();
      await closeDependencies(deps);
    },
  };
}
