/**
 * The routing plan: one pure step, used by every endpoint, that turns (caller, request,
 * model) into the ordered attempts of this request before any upstream call. The steps, in
 * order:
 *
 * 1. request checks — rule 6 (tools on a model without tool support), then the hooks'
 *    `requestChecks` (guardrail); a check refuses by throwing a `GatewayError`;
 * 2. candidates — a hook's `modelSources` (router pools, with the router's decision), else
 *    the model's catalog routes, primary first;
 * 3. filters — the hooks' `filters` (organization policy) remove candidates with a reason and
 *    fail closed when they leave none;
 * 4. context — a chat standby whose provider accepts less context than the request needs is
 *    left out (`routes[].context_length`);
 *    single route — speech never falls back: only the first candidate stays;
 * 5. refusals — rule 7: a rebuilding route that cannot express a chat request is marked
 *    refused (a refused first candidate is the answer, a refused standby is skipped);
 * 6. parameters — rule 1: each candidate's request without what its route does not support
 *    (the model's `supported_parameters`, the provider's `unsupported_parameters`, the model
 *    family's `exclusive_parameters`), the reasoning effort fitted to the route's efforts, then
 *    what the provider's request schema lacks (the dialect's `conform`); the names dropped,
 *    with rule 8's `response_format` on a Responses route that ignores `text.format`.
 *
 * Planning awaits nothing and writes nothing: a hook's check that needs I/O comes back in the
 * plan's `deferred`, and a hook's refusal carries its metadata row for the pipeline to write.
 *
 * Anchor: the AI SDK's `getArgs → { args, warnings }` before `postJsonToApi`.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import { GatewayError } from "../errors.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { checkRebuildingRefusals } from "../providers/rebuilding_refusals.ts";
import { filterParameters } from "./filter_parameters.ts";
import { filterEmbeddings, filterTranscription } from "./filter_non_chat.ts";
import { fitReasoning } from "./fit_reasoning.ts";
import { dialectOf } from "../providers/registry.ts";
import type {
  CandidateFilter,
  DeferredCheck,
  PlanInput,
  PlannedRequest,
  RemovedRoute,
  RouteCandidate,
  RoutePlan,
  RoutingHooks,
  SourcedModels,
} from "./route_plan.ts";
import type { Model } from "../catalog/schema.ts";
import { ROUTER_PREFIX } from "../smart_router/policy.ts";
import { requestNeeds } from "../smart_router/decide.ts";
import { type CacheAffinity, cacheSession } from "./cache_affinity.ts";

export function planRoutes<P extends PlannedRequest>(
  input: PlanInput<P>,
  hooks: RoutingHooks,
): RoutePlan<P["request"]> {
  const sourced = sourcedModels(input, hooks);
  const deferred = checkRequest(input, hooks, sourced === undefined);
  const explanation: string[] = [];
  const removed: RemovedRoute[] = [];

  // Never changed in place: a step that removes routes makes a new array.
  let routes: readonly ResolvedRoute[] = sourced
    ? sourced.models.flatMap((model) => input.catalog.routesOf(model))
    : input.catalog.routesOf(input.model);
  if (sourced?.routing) {
    explanation.push(`router ${sourced.routing.policy}: ${sourced.routing.reason}`);
  }
  explanation.push(sourced ? candidatesLine(routes) : catalogCandidatesLine(routes));

  for (const filter of hooks.filters) {
    const kept = keptBy(filter, routes, input, removed, explanation);
    if (routes.length > 0 && kept.length === 0) {
      // The model the client asked for, for the error: the router, not its first model.
      const requested = sourced?.routing
        ? `${ROUTER_PREFIX}${sourced.routing.policy}`
        : input.model.id;
      throw filter.noneLeft(input, { requested, routes });
    }
    routes = kept;
  }

  if (input.endpoint === "chat" || input.endpoint === "responses") {
    routes = withoutShortStandbys(routes, input.request, removed, explanation);
    if (hooks.cacheAffinity) {
      routes = cacheHolderFirst(routes, input.request, input, hooks.cacheAffinity, explanation);
    }
  }

  if (input.endpoint === "speech" && routes.length > 1) {
    for (const route of routes.slice(1)) {
      removed.push({ route, step: "single-route", reason: "speech never falls back" });
    }
    routes = routes.slice(0, 1);
    explanation.push("single-route: speech never falls back");
  }

  const candidates: RouteCandidate<P["request"]>[] = [];
  for (const route of routes) candidates.push(candidateFor(input, route, explanation));
  const plan: RoutePlan<P["request"]> = { candidates, removed, explanation };
  if (sourced?.routing) plan.routing = sourced.routing;
  if (deferred) plan.deferred = deferred;
  return plan;
}

/**
 * A standby whose provider accepts less context than the model (`routes[].context_length`) is
 * left out when the request would not fit it (the estimate the router uses: characters / 4,
 * plus `max_tokens`), so a long prompt that the primary takes does not end on a 400 there.
 * The primary is always kept: the model's own context length is what clients are told.
 */
function withoutShortStandbys(
  routes: readonly ResolvedRoute[],
  request: ChatRequest,
  removed: RemovedRoute[],
  explanation: string[],
): readonly ResolvedRoute[] {
  if (!routes.slice(1).some((r) => r.route.context_length !== undefined)) return routes;
  const needs = requestNeeds(request);
  const wanted = needs.promptTokens + (needs.maxTokens ?? 0);
  const kept = routes.filter((route, i) => {
    const limit = route.route.context_length;
    if (i === 0 || limit === undefined || wanted <= limit) return true;
    const reason = `context: needs about ${wanted} tokens, the route accepts ${limit}`;
    removed.push({ route, step: "context", reason });
    explanation.push(`context removed ${routeName(route)}: ${reason}`);
    return false;
  });
  return kept.length === routes.length ? routes : kept;
}

/**
 * The routes `filter` keeps, each one it removes recorded with its reason; `routes` itself
 * when it removes none (no array is made then).
 */
function keptBy(
  filter: CandidateFilter,
  routes: readonly ResolvedRoute[],
  input: PlanInput,
  removed: RemovedRoute[],
  explanation: string[],
): readonly ResolvedRoute[] {
  let kept: ResolvedRoute[] | undefined;
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i]!;
    const reason = filter.exclude(route, input);
    if (reason === undefined) {
      kept?.push(route);
      continue;
    }
    kept ??= routes.slice(0, i);
    removed.push({ route, step: filter.name, reason });
    explanation.push(`${filter.name} removed ${routeName(route)}: ${reason}`);
  }
  return kept ?? routes;
}

/**
 * Cache affinity: the route whose provider holds this session's prompt cache goes before the
 * other routes of its model (a standby that served it stays first while the cache lives).
 */
function cacheHolderFirst(
  routes: readonly ResolvedRoute[],
  request: ChatRequest,
  input: PlanInput,
  affinity: CacheAffinity,
  explanation: string[],
): readonly ResolvedRoute[] {
  const session = cacheSession(request, input.caller.keyId);
  if (session === undefined) return routes;
  const holder = affinity.holder(input.caller.org, session);
  if (holder === undefined) return routes;
  const at = routes.findIndex((r) =>
    r.model.id === holder.model && r.providerId === holder.provider
  );
  const first = routes.findIndex((r) => r.model.id === holder.model);
  if (at <= first) return routes;
  const moved = [...routes];
  const [route] = moved.splice(at, 1);
  moved.splice(first, 0, route!);
  explanation.push(`cache affinity: ${routeName(route!)} holds this session's prompt cache`);
  return moved;
}

function candidatesLine(routes: readonly ResolvedRoute[]): string {
  return `candidates: ${routes.map(routeName).join(", ") || "none"}`;
}

/** A catalog model's routes are one array per catalog: its line is made once. */
const CATALOG_LINES = new WeakMap<readonly ResolvedRoute[], string>();

function catalogCandidatesLine(routes: readonly ResolvedRoute[]): string {
  let line = CATALOG_LINES.get(routes);
  if (line === undefined) CATALOG_LINES.set(routes, line = candidatesLine(routes));
  return line;
}

/**
 * Rule 6 (unless a router source chose the models), then the guardrail hooks; the checks they
 * leave for later, if any.
 */
function checkRequest(
  input: PlanInput,
  hooks: RoutingHooks,
  requestedModel: boolean,
): DeferredCheck[] | undefined {
  if (requestedModel && (input.endpoint === "chat" || input.endpoint === "responses")) {
    checkToolSupport(input.request, input.model);
  }
  let deferred: DeferredCheck[] | undefined;
  for (const check of hooks.requestChecks) {
    const later = check(input);
    if (later) (deferred ??= []).push(later);
  }
  return deferred;
}

/** Rule 6: tools on a model without `tools` support are refused. */
export function checkToolSupport(request: ChatRequest, model: PlanInput["model"]): void {
  if ((request.tools || request.hostedTools) && !model.supported_parameters.includes("tools")) {
    throw new GatewayError(
      400,
      "tools_not_supported",
      `Model '${model.id}' does not support tool calling; remove 'tools'.`,
      { param: "tools" },
    );
  }
}

/** The first model source that answers, as `{ models, routing? }`; undefined: none did. */
function sourcedModels(
  input: PlanInput,
  hooks: RoutingHooks,
): { models: readonly Model[]; routing?: SourcedModels["routing"] } | undefined {
  for (const source of hooks.modelSources) {
    const answer = source(input);
    if (answer === undefined) continue;
    return "models" in answer ? answer : { models: answer };
  }
  return undefined;
}

function candidateFor<P extends PlannedRequest>(
  input: PlanInput<P>,
  route: ResolvedRoute,
  explanation: string[],
): RouteCandidate<P["request"]> {
  if (input.endpoint === "embeddings") {
    const filtered = filterEmbeddings(input.request, route);
    noteDropped(route, filtered.dropped, explanation);
    return { route, request: filtered.request as P["request"], dropped: filtered.dropped };
  }
  if (input.endpoint === "transcriptions") {
    const filtered = filterTranscription(input.request, route);
    noteDropped(route, filtered.dropped, explanation);
    return { route, request: filtered.request as P["request"], dropped: filtered.dropped };
  }
  if (input.endpoint !== "chat" && input.endpoint !== "responses") {
    return { route, request: input.request, dropped: [] };
  }
  const request = input.request as ChatRequest;
  const refusal = refusalOf(request, route);
  if (refusal) explanation.push(`refused ${routeName(route)}: ${refusal.code}`);
  const filtered = filterParameters(request, route);
  const fitted = fitReasoning(filtered.request, route);
  const conformed = dialectOf(route.dialect)?.conform?.(fitted.request, route) ??
    { request: fitted.request, dropped: [] };
  const dropped = [...filtered.dropped, ...fitted.dropped, ...conformed.dropped];
  if (input.endpoint === "responses" && ignoresResponseFormat(request, route, dropped)) {
    dropped.push("response_format");
  }
  noteDropped(route, dropped, explanation);
  if (fitted.adjusted.length > 0) {
    explanation.push(`adjusted on ${routeName(route)}: ${fitted.adjusted.join(", ")}`);
  }
  const candidate: RouteCandidate<P["request"]> = {
    route,
    request: conformed.request as P["request"],
    dropped,
  };
  if (fitted.adjusted.length > 0) candidate.adjusted = fitted.adjusted;
  if (refusal) candidate.refusal = refusal;
  return candidate;
}

/**
 * Rule 8 on the Responses endpoint: a route whose dialect cannot honour `text.format` ignores it
 * (the request succeeds, the answer need not be JSON), so the client is told it was dropped.
 */
function ignoresResponseFormat(
  request: ChatRequest,
  route: ResolvedRoute,
  dropped: readonly string[],
): boolean {
  return request.responseFormat !== undefined && !dropped.includes("response_format") &&
    !dialectOf(route.dialect)?.capabilities.responseFormat;
}

function noteDropped(route: ResolvedRoute, dropped: readonly string[], explanation: string[]) {
  if (dropped.length > 0) explanation.push(`dropped on ${routeName(route)}: ${dropped.join(", ")}`);
}

/** Rule 7 on the client's request as sent (before rule-1 filtering), as a value. */
function refusalOf(request: ChatRequest, route: ResolvedRoute): GatewayError | undefined {
  try {
    checkRebuildingRefusals(request, route);
    return undefined;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

function routeName(route: ResolvedRoute): string {
  return `${route.providerId}/${route.route.upstream_model}`;
}
