/** Composition root: read config, start the gateway (store, catalog, adapters, server). */
import { loadConfig } from "./src/config.ts";
import { startGateway } from "./src/gateway.ts";
import { createLogger } from "./src/log.ts";

const config = loadConfig();
const log = createLogger(config.logLevel);
try {
  const gateway = await startGateway(config, { log, signals: true });
  log.info("sovra listening", { url: gateway.url, catalog: config.catalogDir, kv: config.kvPath });
} catch (error) {
  console.error((error as Error).message);
  Deno.exit(1);
}
