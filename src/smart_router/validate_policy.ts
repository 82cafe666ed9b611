/**
 * Save-time validation of a routing policy, shared by the admin CLI and the dashboard:
 * the schema (slug, strategy, threshold, weights), then every pool model against the catalog
 * (unknown, disabled, non-chat and `router/…` ids are refused with the model named).
 */
import type { Catalog } from "../catalog/catalog.ts";
import { MetricWeights, poolProblems, RoutingPolicy } from "./policy.ts";
import { zodProblems } from "./zod_problems.ts";

export class PolicyError extends Error {
  override name = "PolicyError";
}

export function validatePolicy(input: unknown, catalog: Catalog): RoutingPolicy {
  const parsed = RoutingPolicy.safeParse(input);
  if (!parsed.success) throw new PolicyError(zodProblems(parsed.error));
  const policy = parsed.data;
  const problems = poolProblems(policy.pool, catalog);
  if (problems.length > 0) throw new PolicyError(`pool: ${problems.join("; ")}.`);
  if (policy.weights && policy.strategy !== "metrics") {
    throw new PolicyError("weights: only the 'metrics' strategy uses weights.");
  }
  if (policy.strategy === "metrics" && !policy.weights) {
    return { ...policy, weights: MetricWeights.parse({}) };
  }
  return policy;
}
