/**
 * Builds a running gateway from a config: opens the store, loads the catalog, wires the
 * adapters, serves. Used by `main.ts`, the demo and the tests.
 */
import type { Config } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { openStore } from "./state/open_store.ts";
import { loadCatalog } from "./catalog/load.ts";
import { CatalogHolder } from "./catalog/catalog_holder.ts";
import { ApiKeyAuthenticator } from "./auth/api_key_cache.ts";
import { createOpenAIAdapter } from "./providers/openai/adapter.ts";
import { createBedrockAdapter } from "./providers/bedrock/adapter.ts";
import { createVertexAnthropicAdapter } from "./providers/vertex_anthropic/adapter.ts";
import { Settler } from "./billing/settle.ts";
import { RouteMetrics } from "./routing/route_metrics.ts";
import { NO_ROUTING_HOOKS } from "./routing/route_plan.ts";
import { createLogger, type Logger } from "./log.ts";
import { GateState } from "./limits/gate_state.ts";
import { UnsentTally } from "./limits/unsent_tally.ts";
import { createApp } from "./app.ts";
import { describeBindError } from "./http/port_in_use.ts";
import { startRetentionCleanup } from "./state/retention.ts";
import { missingCredentials } from "./catalog/credential_check.ts";

export interface Gateway {
  deps: AppDeps;
  url: string;
  port: number;
  /** Reloads the catalog from disk (SIGHUP). */
  reloadCatalog(): Promise<boolean>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  log?: Logger;
  now?: () => number;
  fetch?: typeof fetch;
  /** Handle SIGHUP (the real process only). */
  signals?: boolean;
}

export async function startGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  const log = options.log ?? createLogger(config.logLevel);
  const catalog = new CatalogHolder(await loadCatalog(config.catalogDir), config.catalogDir, log);
  const store = await openStore(config, log);
  const now = options.now ?? Date.now;
  const upstreamFetch = options.fetch ?? fetch;
  const unsentRequests = new UnsentTally();
  const unsentDebits = new UnsentTally();
  const deps: AppDeps = {
    config,
    store,
    catalog,
    auth: new ApiKeyAuthenticator(store, config.keyCacheSeconds * 1000, now, config.staleServeMs),
    adapters: {
      openai: createOpenAIAdapter({ secret: config.secret, fetch: upstreamFetch }),
      bedrock: createBedrockAdapter({ env: config.secret, fetch: upstreamFetch }),
      "vertex-anthropic": createVertexAnthropicAdapter({
        env: config.secret,
        fetch: upstreamFetch,
      }),
    },
    settler: new Settler(store, log, unsentDebits),
    metrics: new RouteMetrics(),
    routing: NO_ROUTING_HOOKS,
    log,
    gate: new GateState(
      store,
      unsentRequests,
      unsentDebits,
      config.gateRefreshMs,
      config.staleServeMs,
    ),
    unsentRequests,
    counters: { gateStoreFailures: 0 },
    now,
  };
  const warnMissing = () => {
    for (const m of missingCredentials(catalog.current, config.secret)) {
      log.warn("provider credential not set; its routes will fail over", { ...m });
    }
  };
  warnMissing();
  const app = createApp(deps);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      { port: config.port, hostname: config.host, onListen: () => {} },
      app.fetch,
    );
  } catch (error) {
    await store.close().catch(() => {});
    throw describeBindError(error, "SOVRA_PORT", config.host, config.port);
  }
  const port = server.addr.port;
  const cleanup = startRetentionCleanup(store, config.retentionDays, log);

  const onHup = () => void catalog.reload().then((ok) => ok && warnMissing());
  if (options.signals) Deno.addSignalListener("SIGHUP", onHup);

  return {
    deps,
    port,
    url: `http://${config.host}:${port}`,
    reloadCatalog: () => catalog.reload(),
    async close() {
      if (options.signals) Deno.removeSignalListener("SIGHUP", onHup);
      cleanup.stop();
      await server.shutdown();
      await deps.settler.idle();
      await store.close();
    },
  };
}
