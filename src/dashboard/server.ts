/**
 * Starts the dashboard on its own port over a store the caller opened (the gateway's, when
 * both run in one process, then served as the gateway serves its API; see
 * `scripts/dashboard.ts` for the dashboard alone).
 */
import type { Config } from "../config.ts";
import type { Store } from "../state/store.ts";
import type { Logger } from "../log.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { controlPlaneOf } from "../state/kv/control_plane.ts";
import type { AccountStore } from "../state/account_store.ts";
import type { ControlStore } from "../state/control_store.ts";
import type { SsoStore } from "../state/sso_store.ts";
import type { TwoFactorStore } from "../state/two_factor_store.ts";
import { sealedTwoFactorStore } from "../state/sealed_two_factor.ts";
import { secretBoxFor } from "../util/secret_box.ts";
import { type Mailer, mailerFor } from "../mail/mailer.ts";
import { backgroundWork } from "./background.ts";
import { createDashboardApp } from "./app.ts";
import { serveListener } from "../lifecycle/listener.ts";
import type { DashboardDeps } from "./deps.ts";

export interface Dashboard {
  deps: DashboardDeps;
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface DashboardOptions {
  config: Config;
  store: Store;
  accounts?: AccountStore;
  control?: ControlStore;
  sso?: SsoStore;
  twoFactor?: TwoFactorStore;
  /** Replaces the mailer `SOVRA_SMTP_URL` configures. */
  mailer?: Mailer;
  log: Logger;
  apiUrl: string;
  catalog?: () => Catalog;
  now?: () => number;
  /** Serves the app (the gateway's `serveBeside`); a listener of its own without it. */
  listen?: (
    handler: (request: Request) => Response | Promise<Response>,
    options: { port: number; portVariable: string },
  ) => { port: number; shutdown(): Promise<void> };
}

export function startDashboard(options: DashboardOptions): Dashboard {
  const { config } = options;
  const areas = controlPlaneOf(options.store);
  const accounts = options.accounts ?? areas?.accounts;
  const control = options.control ?? areas?.control;
  const sso = options.sso ?? areas?.sso;
  const storedTwoFactor = options.twoFactor ?? areas?.twoFactor;
  if (!accounts || !control || !sso || !storedTwoFactor) {
    throw new Error("The dashboard has no control-plane stores for this state backend yet.");
  }
  const twoFactor = sealedTwoFactorStore(
    storedTwoFactor,
    secretBoxFor(config.secretKey, "totp secrets"),
  );
  let url = "";
  const mailer = options.mailer ?? mailerFor(config);
  const background = backgroundWork(options.log);
  const deps: DashboardDeps = {
    config,
    store: options.store,
    accounts,
    control,
    sso,
    twoFactor,
    ...(mailer ? { mailer } : {}),
    background,
    log: options.log,
    now: options.now ?? Date.now,
    apiUrl: options.apiUrl,
    publicUrl: () => config.dashboardUrl ?? url,
    ...(options.catalog ? { catalog: options.catalog } : {}),
  };
  const app = createDashboardApp(deps);
  const server = options.listen
    ? options.listen(app.fetch, {
      port: config.dashboardPort,
      portVariable: "SOVRA_DASHBOARD_PORT",
    })
    : ownListener(app.fetch, config, options.log);
  const port = server.port;
  url = `http://${config.host}:${port}`;
  return {
    deps,
    url,
    port,
    async close() {
      await server.shutdown();
      await background.idle();
      if (!options.mailer) mailer?.close();
    },
  };
}

/** Standalone (`deno task dashboard`): a listener of its own that survives accept errors. */
function ownListener(
  handler: (request: Request) => Response | Promise<Response>,
  config: Config,
  log: Logger,
): { port: number; shutdown(): Promise<void> } {
  const server = serveListener({ port: config.dashboardPort, hostname: config.host, log }, handler);
  return { port: server.addr.port, shutdown: () => server.shutdown() };
}

/** The dashboard beside a running gateway, on the gateway's store (same process). */
export function startDashboardBeside(
  gateway: {
    url: string;
    deps: { config: Config; store: Store; catalog: { current: Catalog } };
    /** A listener served as the gateway's API is (`Gateway.serveBeside`). */
    serveBeside?: DashboardOptions["listen"];
  },
  log: Logger,
): Dashboard {
  const { store, config, catalog } = gateway.deps;
  return startDashboard({
    config,
    store,
    log,
    apiUrl: gateway.url,
    catalog: () => catalog.current,
    ...(gateway.serveBeside ? { listen: gateway.serveBeside } : {}),
  });
}
