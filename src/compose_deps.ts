/**
 * Builds the dependencies once from a config: the store, the catalog, the adapters, the
 * gate, the settler. Every server of the process (the API, later the dashboard) is served
 * from the same set; `closeDependencies` releases them after the servers stopped.
 */
import type { Config } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { openStore } from "./state/open_store.ts";
import { guardStore } from "./state/guarded_store.ts";
import { StoreBreaker } from "./state/store_breaker.ts";
import { loadCatalog } from "./catalog/load.ts";
import { CatalogHolder } from "./catalog/catalog_holder.ts";
import { ApiKeyAuthenticator, type OrgControls } from "./auth/api_key_authenticator.ts";
import { createAdapters, DIALECTS } from "./providers/registry.ts";
import { Settler } from "./billing/settle.ts";
import { RefusedRows } from "./billing/refused_rows.ts";
import { RouteMetrics } from "./routing/route_metrics.ts";
import { NO_ROUTING_HOOKS } from "./routing/route_plan.ts";
import { PolicyCache } from "./policy/policy_cache.ts";
import { guardrailRequestCheck, policyFilter } from "./policy/hooks.ts";
import { Guardrail } from "./guardrail/scanner.ts";
import { routerModelSource } from "./routing/router_source.ts";
import { CacheAffinity } from "./routing/cache_affinity.ts";
import { RoutingPolicyCache } from "./smart_router/policy_cache.ts";
import { RouterPins } from "./smart_router/pins.ts";
import { createLogger, type Logger } from "./log.ts";
import { GateState } from "./limits/gate_state.ts";
import { UnsentTally } from "./limits/unsent_tally.ts";
import { CreditHolds } from "./limits/credit_holds.ts";
import { createSharedLimits } from "./limits/shared_limits.ts";
import { Telemetry } from "./telemetry/telemetry.ts";
import { Lifecycle } from "./lifecycle/lifecycle.ts";
import { randomId } from "./util/ids.ts";
import { AlertSender, WEBHOOK_SECRETS } from "./alerts/alert_sender.ts";
import { mailerFor } from "./mail/mailer.ts";
import { type BudgetView, SpendAlerts } from "./alerts/spend_alerts.ts";
import { keyBudgetStanding } from "./accounts/key_budget.ts";
import { budgetName } from "./util/budget_period.ts";
import { postUpstream } from "./providers/transport/post_upstream.ts";
import { upstreamClient } from "./providers/transport/upstream_client.ts";
import { failureFromResponse } from "./providers/openai/errors.ts";
import { controlPlaneOf } from "./state/kv/control_plane.ts";
import type { Store } from "./state/store.ts";
import { secretBoxFor } from "./util/secret_box.ts";

export interface ComposeOptions {
  log?: Logger;
  now?: () => number;
  fetch?: typeof fetch;
  /**
   * The process's shared limits (`SOVRA_WORKERS`): the table the primary made, and whether this
   * isolate is the primary (it reclaims the table's free slots). Absent: a table of its own.
   */
  shared?: { buffer: SharedArrayBuffer | undefined; primary: boolean; isolates: number };
  /** The process's instance id (every isolate's admissions and lease); absent: a new one. */
  instance?: string;
}

export async function composeDependencies(
  config: Config,
  options: ComposeOptions = {},
): Promise<AppDeps> {
  const log = options.log ?? createLogger(config.logLevel);
  const catalog = new CatalogHolder(
    await loadCatalog(config.catalogDir, DIALECTS),
    config.catalogDir,
    log,
    DIALECTS,
  );
  const telemetry = new Telemetry({ tracing: config.tracing });
  const backend = await openStore(config, log, (size, ms) => telemetry.committed(size, ms));
  const instance = options.instance ?? randomId("inst_", 12);
  // Every store call on the request path has a deadline and a circuit; while open, a lease
  // renewal probes the store every second (a write: it fails under a lock as under an outage).
  const breaker = new StoreBreaker({
    deadlineMs: config.storeDeadlineMs,
    probe: () => backend.renewLease(instance, Date.now() + config.instanceLeaseMs),
    ...(backend.isOutage ? { isOutage: (error: unknown) => backend.isOutage!(error) } : {}),
    log,
  });
  const store = guardStore(backend, breaker);
  const now = options.now ?? Date.now;
  const client = options.fetch ? undefined : upstreamClient(config.upstreamIdleMs);
  const upstreamFetch = options.fetch ?? client!.fetch;
  // One instance's limits, whichever isolate of the process a request lands on.
  const limits = createSharedLimits({
    buffer: options.shared?.buffer,
    primary: options.shared?.primary ?? true,
    // Longer than the oldest gate snapshot still served (its marks refer to the slot).
    evictAfterMs: config.staleServeMs + config.gateRefreshMs + 60_000,
    transcriptionSlots: config.transcriptionSlots,
    onOverflow: (bucket) =>
      log.warn("shared limit table: a bucket is full; its further names count together", {
        bucket,
      }),
  });
  // An isolate alone counts in memory only: the table's ~1 µs a request buys nothing there.
  const others = (options.shared?.isolates ?? 1) > 1 ? limits.counters : undefined;
  const unsentRequests = new UnsentTally(others);
  const unsentDebits = new UnsentTally(others);
  const holds = new CreditHolds(others);
  const counters = { gateStoreFailures: 0 };
  const settler = new Settler(store, log, unsentDebits, telemetry, holds);
  telemetry.observeFailOpen(() => counters.gateStoreFailures);
  const alerts = composeAlerts(store, unsentDebits, log, config, now);
  if (alerts) settler.onSettled((record) => alerts.spend.observe(record));
  const deps: AppDeps = {
    config,
    closeUpstream: () => client?.close(),
    store,
    catalog,
    auth: new ApiKeyAuthenticator(
      store,
      config.keyCacheSeconds * 1000,
      now,
      config.staleServeMs,
      orgControlsOf(store, breaker),
    ),
    adapters: createAdapters({ secret: config.secret, fetch: upstreamFetch }),
    settler,
    refusedRows: new RefusedRows(settler, now),
    ...(alerts ? { alerts } : {}),
    metrics: new RouteMetrics(),
    routing: {
      ...NO_ROUTING_HOOKS,
      // What the organization's policy refuses leaves a zero-cost metadata record (the
      // pipeline writes it: pipeline/plan_request.ts).
      requestChecks: [
        guardrailRequestCheck(new Guardrail(), {
          // The guardrail's remote layer goes over the one upstream transport.
          post: (request) =>
            postUpstream({ ...request, fetch: upstreamFetch, failure: failureFromResponse }),
          secret: config.secret,
        }),
      ],
      filters: [policyFilter()],
      cacheAffinity: new CacheAffinity(now),
    },
    policies: new PolicyCache(store, config.keyCacheSeconds * 1000, now, config.staleServeMs),
    routerPolicies: new RoutingPolicyCache(store.routingPolicies, config.routerPolicyCacheMs, now),
    routerPins: new RouterPins({
      now,
      ...(store.routerPins ? { shared: store.routerPins } : {}),
      onError: (error) =>
        log.warn("router pin store failed", { reason: String((error as Error)?.message ?? error) }),
    }),
    log,
    gate: new GateState(
      store,
      unsentRequests,
      unsentDebits,
      config.gateRefreshMs,
      config.staleServeMs,
      holds,
      others,
    ),
    limits,
    unsentRequests,
    counters,
    instance,
    telemetry,
    lifecycle: new Lifecycle(),
    now,
  };
  // The smart router: `router/<id>` requests get their pool from the organization's policy.
  // It reads the plan's filters (organization policy) at each request, so a filter added to
  // `deps.routing` also decides what the router may choose.
  deps.routing = {
    ...deps.routing,
    modelSources: [
      routerModelSource({
        policies: deps.routerPolicies,
        metrics: deps.metrics,
        pins: deps.routerPins,
        cacheAffinity: deps.routing.cacheAffinity,
        filters: () => deps.routing.filters,
        exploration: config.routerExplorationPercent / 100,
      }),
      ...deps.routing.modelSources,
    ],
  };
  // Where the store tells of revocations (PostgreSQL), other instances' reach this cache at once.
  await store.onKeyRevoked?.((keyId) => deps.auth.forget(keyId));
  return deps;
}

/**
 * Spend alerts where the store has their area: evaluated on every settle, sent signed; at start
 * the deliveries a stopped instance left pending are resumed (in the background).
 */
function composeAlerts(
  store: Store,
  unsentDebits: UnsentTally,
  log: Logger,
  config: Config,
  now: () => number,
): AppDeps["alerts"] {
  const area = store.alerts;
  if (!area) return undefined;
  const mailer = mailerFor(config);
  const sender = new AlertSender({
    store: area,
    log,
    allowLocal: config.webhookAllowLocal,
    secretBox: secretBoxFor(config.secretKey, WEBHOOK_SECRETS),
    now,
    ...(mailer ? { mailer } : {}),
  });
  const spend = new SpendAlerts({
    alerts: area,
    orgs: store,
    usage: store,
    unsentDebits,
    sender,
    log,
    now,
    budgets: budgetView(store, unsentDebits, now),
  });
  sender.resume((org) => area.getAlertSettings(org)).catch((error) =>
    log.warn("resuming alert deliveries failed", { reason: String(error) })
  );
  return { spend, sender, ...(mailer ? { mailer } : {}) };
}

/**
 * A key's budget standing for the spend alerts: the store's period spend plus this instance's
 * debits of the key not yet in it (marked before the read, as the gate does).
 */
function budgetView(store: Store, unsentDebits: UnsentTally, now: () => number): BudgetView {
  return {
    async standing(keyId) {
      const key = await store.getApiKey(keyId);
      if (!key?.budget_micro_eur || !key.budget_period) return undefined;
      const mark = unsentDebits.sentCount(budgetName(keyId));
      const standing = await keyBudgetStanding(store, key, now());
      if (!standing) return undefined;
      const unsent = Number(unsentDebits.unsentCount(budgetName(keyId), mark));
      return {
        keyId,
        keyName: key.name,
        budgetMicroEur: standing.budget_micro_eur,
        spentMicroEur: standing.spent_micro_eur + unsent,
        period: standing.budget_period,
        periodStart: standing.period_start,
        resetsAt: standing.resets_at,
      };
    },
  };
}

/**
 * What the operator set for an organization — its keys' RPM ceiling, a suspension — for the key
 * lookup, from one read of its control-plane settings; a backend without those areas has none.
 */
function orgControlsOf(
  store: Store,
  breaker: StoreBreaker,
): ((orgId: string) => Promise<OrgControls>) | undefined {
  const control = controlPlaneOf(store)?.control;
  // Read with a key's lookup, so under the breaker's deadline too.
  return control && (async (orgId) => {
    const settings = await breaker.call(() => control.getOrgSettings(orgId));
    return { rpmCeiling: settings.rpm_ceiling, suspended: settings.suspended_at !== null };
  });
}

/** After every server stopped: merged refusal rows and settles still in flight, then the store. */
export async function closeDependencies(deps: AppDeps): Promise<void> {
  deps.refusedRows.flush(true);
  await deps.settler.idle();
  deps.settler.stopRetries();
  await deps.alerts?.spend.idle();
  await deps.alerts?.sender.idle();
  deps.alerts?.sender.close();
  deps.alerts?.mailer?.close();
  await deps.routerPins.idle();
  await deps.store.close();
  deps.limits.stop();
  deps.telemetry.close();
  deps.closeUpstream?.();
}
