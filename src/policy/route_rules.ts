/**
 * Which routes a policy allows. A route's tier is its provider's catalog `sovereignty`, else
 * its model's. Rules, in the order a refusal names them: `allowed_models` (the model is not on
 * the allow-list), `sovereignty` (strict_only and the route is pragmatic), `blocked_providers`,
 * `zdr_only` (the provider's catalog entry lacks `"zdr": true`).
 */
import type { Catalog } from "../catalog/catalog.ts";
import type { Model } from "../catalog/schema.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { EffectivePolicy, PolicySource } from "./effective_policy.ts";

export type PolicyRule = "allowed_models" | "sovereignty" | "blocked_providers" | "zdr_only";

export interface RouteRefusal {
  rule: PolicyRule;
  source: PolicySource;
  /** Why, naming the rule and the provider; never request content. */
  reason: string;
}

export function routeTier(route: ResolvedRoute): "strict" | "pragmatic" {
  return route.provider.sovereignty ?? route.model.sovereignty;
}

export function modelRefusal(model: Model, policy: EffectivePolicy): RouteRefusal | undefined {
  if (policy.allowedModels !== null && !policy.allowedModels.has(model.id)) {
    return {
      rule: "allowed_models",
      source: policy.allowedModelsSource ?? "organization",
      reason: `allowed_models (${policy.allowedModelsSource} policy) does not list '${model.id}'`,
    };
  }
  return undefined;
}

export function routeRefusal(
  route: ResolvedRoute,
  policy: EffectivePolicy,
): RouteRefusal | undefined {
  const model = modelRefusal(route.model, policy);
  if (model) return model;
  if (policy.strictOnly !== null && routeTier(route) !== "strict") {
    return {
      rule: "sovereignty",
      source: policy.strictOnly,
      reason:
        `sovereignty=strict_only (${policy.strictOnly} policy): provider '${route.providerId}' is pragmatic`,
    };
  }
  const blockedBy = policy.blockedProviders.get(route.providerId);
  if (blockedBy !== undefined) {
    return {
      rule: "blocked_providers",
      source: blockedBy,
      reason: `blocked_providers (${blockedBy} policy) lists '${route.providerId}'`,
    };
  }
  if (policy.zdrOnly !== null && route.provider.zdr !== true) {
    return {
      rule: "zdr_only",
      source: policy.zdrOnly,
      reason:
        `zdr_only (${policy.zdrOnly} policy): provider '${route.providerId}' does not guarantee zero data retention`,
    };
  }
  return undefined;
}

/** Active models with at least one route the policy allows (for the allowed-models header). */
export function allowedModelIds(catalog: Catalog, policy: EffectivePolicy): string[] {
  const out: string[] = [];
  for (const model of catalog.activeModels()) {
    if (catalog.routesOf(model).some((route) => routeRefusal(route, policy) === undefined)) {
      out.push(model.id);
    }
  }
  return out;
}
