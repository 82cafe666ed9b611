/**
 * The smart router as a routing-plan hook (`ModelSource`): a chat or Responses request whose
 * `model` is `router/<policy-id>` gets the ordered pool models of that organization's policy
 * (choice first, then the fallbacks of rule 4). The candidates are built from the pool only;
 * the organization-policy filters of the plan decide what is allowed, here (so the choice is
 * made among allowed models) and again in the plan's filter step (which fails closed).
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { Model } from "../catalog/schema.ts";
import { GatewayError, modelNotFound } from "../errors.ts";
import { checkRebuildingRefusals } from "../providers/rebuilding_refusals.ts";
import { classifyText } from "../smart_router/classifier.ts";
import {
  decide,
  type DecisionInput,
  type ModelHealth,
  requestNeeds,
} from "../smart_router/decide.ts";
import { poolTable } from "./pool_table.ts";
import { noEligibleModel } from "../smart_router/errors.ts";
import { routerPolicyId } from "../smart_router/policy.ts";
import type { RoutingPolicyCache } from "../smart_router/policy_cache.ts";
import { continuedCalls, type RouterPins } from "../smart_router/pins.ts";
import { type CacheAffinity, cacheSession } from "./cache_affinity.ts";
import type { RouteMetrics } from "./route_metrics.ts";
import type { CandidateFilter, ModelSource, PlanInput, SourcedModels } from "./route_plan.ts";

export interface RouterSourceOptions {
  policies: RoutingPolicyCache;
  metrics: RouteMetrics;
  pins: RouterPins;
  /** Where caching sessions' prompt caches live: such a session stays on that model. */
  cacheAffinity?: CacheAffinity | undefined;
  /** The plan's candidate filters (organization policy), read at each request. */
  filters: () => readonly CandidateFilter[];
  random?: () => number;
  exploration?: number;
}

/** The last user message's text: what the classifier reads. */
function lastUserText(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i]!;
    if (m.role === "user") return m.content;
  }
  return "";
}

export function routerModelSource(options: RouterSourceOptions): ModelSource {
  return (input: PlanInput): SourcedModels | undefined => {
    if (input.endpoint !== "chat" && input.endpoint !== "responses") return undefined;
    const request = input.request;
    const policyId = routerPolicyId(request.model);
    if (policyId === undefined) return undefined;
    const policy = options.policies.peek(input.caller.org, policyId);
    if (!policy) throw modelNotFound(request.model);
    const org = input.caller.org;

    const filters = options.filters();
    const catalog = input.catalog;
    const table = poolTable(policy, catalog);
    const allowed = (model: Model) => {
      for (const route of catalog.routesOf(model)) {
        if (filters.every((f) => f.exclude(route, input) === undefined)) return true;
      }
      return false;
    };
    // Rule 7 as the plan will apply it: the model's first route the organization allows
    // (else its primary) refusing the request is this model's answer, a 400.
    const refuses = (model: Model) => {
      const routes = catalog.routesOf(model);
      const first =
        routes.find((route) => filters.every((f) => f.exclude(route, input) === undefined)) ??
          routes[0];
      if (first === undefined) return undefined;
      try {
        checkRebuildingRefusals({ ...request, model: model.id }, first);
        return undefined;
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        return `refused on ${first.providerId} (${error.code})`;
      }
    };
    const health = (model: Model): ModelHealth | undefined => {
      const key = table.metricsKey(model);
      return key === undefined ? undefined : options.metrics.peek(key);
    };
    const calls = continuedCalls(request);
    const loopModel = calls.length ? options.pins.toolLoop(org, policy.id, calls) : undefined;
    const session = options.cacheAffinity ? cacheSession(request, input.caller.keyId) : undefined;
    const warmModel = session === undefined
      ? undefined
      : options.cacheAffinity?.holder(org, session)?.model;
    const userModel = !loopModel && !warmModel && policy.sticky_seconds && request.user
      ? options.pins.endUser(org, policy.id, request.user)
      : undefined;
    const pinned = loopModel
      ? { model: loopModel, reason: `pinned: tool-loop continuation stays on ${loopModel}` }
      : warmModel
      ? { model: warmModel, reason: `sticky: the session's prompt cache is on ${warmModel}` }
      : userModel
      ? { model: userModel, reason: `sticky: end-user keeps ${userModel}` }
      : undefined;

    const classification = policy.strategy === "auto"
      ? classifyText(lastUserText(request))
      : undefined;
    const decisionInput: DecisionInput = {
      policy,
      model: table.model,
      allowed,
      refuses,
      needs: { ...requestNeeds(request), warmModel },
      threshold: policy.threshold,
      health,
      pinned,
      classification,
      random: options.random,
      exploration: options.exploration,
    };
    let decision = decide(decisionInput);
    if (decision.order.length === 0) {
      // Nothing allowed: decide without the organization policy and let its filter step
      // refuse (403, naming the rule) — unless nothing could serve the request at all.
      const unfiltered = decide({ ...decisionInput, allowed: undefined });
      if (unfiltered.order.length === 0) throw noEligibleModel(policy.id, unfiltered.excluded);
      decision = unfiltered;
    }
    return {
      models: decision.order,
      routing: {
        policy: policy.id,
        reason: decision.reason,
        onServed(model, toolCallIds) {
          if (toolCallIds.length) options.pins.pinToolCalls(org, policy.id, toolCallIds, model.id);
          if (policy.sticky_seconds && request.user) {
            options.pins.pinEndUser(org, policy.id, request.user, model.id, policy.sticky_seconds);
          }
        },
      },
    };
  };
}
