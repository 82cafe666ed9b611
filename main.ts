/** Composition root: read config, start the gateway (store, catalog, adapters, server). */
import { loadConfig, retiredSovraVariables, unknownSovraVariables } from "./src/config.ts";
import { startGatewayWorkers } from "./src/workers/pool.ts";
import { createLogger } from "./src/log.ts";
import { startDashboardBeside } from "./src/dashboard/server.ts";
import { describeBindError } from "./src/http/port_in_use.ts";
import { keepServingOnStrayRejections } from "./src/lifecycle/stray_rejections.ts";

let closeDashboard: (() => Promise<void>) | undefined;
try {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  keepServingOnStrayRejections(log);
  for (const name of unknownSovraVariables(Deno.env.toObject())) {
    log.warn("unknown SOVRA_ variable ignored (a typo?); the README lists the known ones", {
      name,
    });
  }
  for (const name of retiredSovraVariables(Deno.env.toObject())) {
    log.warn(
      "variable ignored: connection limits are the front proxy's (README, Reliability; deploy/nginx.conf)",
      { name },
    );
  }
  // SOVRA_WORKERS isolates serve the API on one port; the primary one also everything else.
  const gateway = await startGatewayWorkers(Deno.env.toObject(), { log, signals: true });
  // Graceful shutdown: drain (readiness first), flush settles, close the store, exit 0. The
  // handlers are in place before "sovra listening" is logged, so no early SIGTERM kills.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await closeDashboard?.().catch(() => {});
      const result = await gateway.drain();
      // One line for the whole process (every isolate's streams cut at the deadline summed).
      log.info("shutdown complete", { cut: result.cut, clean: result.clean });
      Deno.exit(0);
    })().catch((error) => {
      log.error("shutdown failed", { reason: (error as Error).message });
      Deno.exit(1);
    });
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  log.info("sovra listening", {
    url: gateway.url,
    workers: gateway.workers,
    ...(gateway.metricsPort !== undefined
      ? { metrics: `http://${config.host}:${gateway.metricsPort}/metrics` }
      : {}),
    catalog: config.catalogDir,
    ...(config.databaseUrl ? { state: "postgres" } : { kv: config.kvPath }),
  });
  const dashboard = (() => {
    try {
      return startDashboardBeside(gateway, log);
    } catch (error) {
      throw describeBindError(error, "SOVRA_DASHBOARD_PORT", config.host, config.dashboardPort);
    }
  })();
  log.info("sovra dashboard listening", { url: dashboard.url });
  closeDashboard = () => dashboard.close();
} catch (error) {
  // Configuration and catalog errors name what to fix; no stack trace.
  console.error(JSON.stringify({
    time: new Date().toISOString(),
    level: "error",
    msg: "sovra could not start",
    reason: (error as Error).message,
  }));
  Deno.exit(1);
}
