/**
 * `x-sovra-policy-allowed-models` on `GET /v1/models`: the list itself is the same for every
 * key (spec), this header says which of its models the caller's organization policy leaves
 * usable (`*` when the policy restricts nothing).
 */
import type { Catalog } from "../catalog/catalog.ts";
import type { EffectivePolicy } from "../policy/effective_policy.ts";
import { allowedModelIds } from "../policy/route_rules.ts";

export function allowedModelsHeader(
  catalog: Catalog,
  policy: EffectivePolicy | undefined,
): Record<string, string> {
  if (policy === undefined || !restricts(policy)) {
    return { "x-sovra-policy-allowed-models": "*" };
  }
  return { "x-sovra-policy-allowed-models": allowedModelIds(catalog, policy).join(",") };
}

function restricts(policy: EffectivePolicy): boolean {
  return policy.strictOnly !== null || policy.blockedProviders.size > 0 ||
    policy.zdrOnly !== null || policy.allowedModels !== null;
}
