/**
 * `deno task dashboard`: the dashboard alone (no request API), on `SOVRA_DASHBOARD_PORT`, over
 * the same store as the gateway (`SOVRA_KV`). The key snippets point at
 * `http://SOVRA_HOST:SOVRA_PORT`.
 */
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { openKvStore } from "../src/state/kv/kv_store.ts";
import { startDashboard } from "../src/dashboard/server.ts";
import { loadCatalog } from "../src/catalog/load.ts";
import { DIALECTS } from "../src/providers/registry.ts";

try {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const store = await openKvStore(config.kvPath);
  const catalog = await loadCatalog(config.catalogDir, DIALECTS).catch(() => undefined);
  const dashboard = startDashboard({
    config,
    store,
    log,
    apiUrl: `http://${config.host}:${config.port}`,
    ...(catalog ? { catalog: () => catalog } : {}),
  });
  log.info("sovra dashboard listening", { url: dashboard.url, kv: config.kvPath });
} catch (error) {
  console.error(JSON.stringify({
    time: new Date().toISOString(),
    level: "error",
    msg: "sovra dashboard could not start",
    reason: (error as Error).message,
  }));
  Deno.exit(1);
}
