/** Key narrowing and the route rules, as pure functions. */
import assert from "node:assert/strict";
import { effectivePolicy } from "../../src/policy/effective_policy.ts";
import { routeRefusal, routeTier } from "../../src/policy/route_rules.ts";
import { DEFAULT_ORG_POLICY } from "../../src/state/policy_store.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";

function route(
  providerId: string,
  provider: { sovereignty?: "strict" | "pragmatic"; zdr?: boolean },
  model: { id?: string; sovereignty: "strict" | "pragmatic" },
): ResolvedRoute {
  return {
    providerId,
    provider: { zdr: false, ...provider },
    route: { provider: providerId, upstream_model: "x" },
    dialect: "openai",
    model: { id: model.id ?? "m/x", sovereignty: model.sovereignty },
  } as unknown as ResolvedRoute;
}

Deno.test("effective policy — a key only narrows: union of blocks, intersection of allow-lists, stronger guardrail", () => {
  const p = effectivePolicy(
    {
      ...DEFAULT_ORG_POLICY,
      blocked_providers: ["a"],
      allowed_models: ["m/1", "m/2"],
      guardrail: "flag",
    },
    { blocked_providers: ["b"], allowed_models: ["m/2", "m/3"], guardrail: "block" },
  );
  assert.deepEqual([...p.blockedProviders], [["a", "organization"], ["b", "key"]]);
  assert.deepEqual([...p.allowedModels!], ["m/2"]);
  assert.equal(p.allowedModelsSource, "key");
  assert.equal(p.guardrail, "block");
  assert.equal(p.strictOnly, null);
});

Deno.test("effective policy — the org's strictness survives any key; a key can add its own", () => {
  const org = {
    ...DEFAULT_ORG_POLICY,
    sovereignty: "strict_only" as const,
    guardrail: "block" as const,
  };
  const p = effectivePolicy(org, { guardrail: "flag" });
  assert.equal(p.strictOnly, "organization");
  assert.equal(p.guardrail, "block", "a key cannot weaken the org's guardrail");
  const k = effectivePolicy(undefined, { sovereignty: "strict_only", zdr_only: true });
  assert.equal(k.strictOnly, "key");
  assert.equal(k.zdrOnly, "key");
  assert.equal(effectivePolicy(undefined, undefined).allowedModels, null);
});

Deno.test("route rules — the provider's tier wins over the model's; each rule is named", () => {
  const strictOnly = effectivePolicy(
    { ...DEFAULT_ORG_POLICY, sovereignty: "strict_only" },
    undefined,
  );
  assert.equal(
    routeTier(route("p", { sovereignty: "pragmatic" }, { sovereignty: "strict" })),
    "pragmatic",
  );
  assert.equal(routeTier(route("p", {}, { sovereignty: "pragmatic" })), "pragmatic");
  assert.equal(
    routeTier(route("p", { sovereignty: "strict" }, { sovereignty: "pragmatic" })),
    "strict",
  );
  assert.equal(
    routeRefusal(route("p", { sovereignty: "pragmatic" }, { sovereignty: "strict" }), strictOnly)
      ?.rule,
    "sovereignty",
  );
  assert.equal(routeRefusal(route("p", {}, { sovereignty: "strict" }), strictOnly), undefined);
  const zdr = effectivePolicy({ ...DEFAULT_ORG_POLICY, zdr_only: true }, undefined);
  assert.equal(routeRefusal(route("p", {}, { sovereignty: "strict" }), zdr)?.rule, "zdr_only");
  assert.equal(routeRefusal(route("p", { zdr: true }, { sovereignty: "strict" }), zdr), undefined);
  const allow = effectivePolicy({ ...DEFAULT_ORG_POLICY, allowed_models: ["m/y"] }, undefined);
  assert.equal(
    routeRefusal(route("p", {}, { sovereignty: "strict" }), allow)?.rule,
    "allowed_models",
  );
});
