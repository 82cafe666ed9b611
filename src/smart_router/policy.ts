/**
 * A routing policy, built by a customer: a pool of catalog chat models and a strategy.
 * Addressed by clients as `model: "router/<id>"` within the policy's organization.
 */
import { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";

export const ROUTER_PREFIX = "router/";

export const Strategy = z.enum(["auto", "metrics", "ordered"]);
export type Strategy = z.infer<typeof Strategy>;

const weight = z.number().min(0).max(100);

/** Weights of the `metrics` strategy; lower score wins (throughput counts inverted). */
export const MetricWeights = z.strictObject({
  latency: weight.default(0),
  ttft: weight.default(1),
  throughput: weight.default(0),
  error_rate: weight.default(1),
  price: weight.default(0),
}).refine((w) => Object.values(w).some((v) => v > 0), "at least one weight must be positive");
export type MetricWeights = z.infer<typeof MetricWeights>;

export const DEFAULT_STICKY_SECONDS = 3600;

export const RoutingPolicy = z.strictObject({
  id: z.string().regex(
    /^[a-z0-9][a-z0-9-]{0,62}$/,
    "must be a slug: lower-case letters, digits and '-', at most 63 characters",
  ),
  name: z.string().min(1).max(200).optional(),
  pool: z.array(z.string().min(1)).min(1, "needs at least one model").max(32)
    .refine((p) => new Set(p).size === p.length, "lists a model twice"),
  strategy: Strategy.default("auto"),
  /** 1 = cheapest that fits, 10 = strongest; strategy `auto` only. */
  threshold: z.number().int().min(1).max(10).default(5),
  weights: MetricWeights.optional(),
  /** Same end-user (`user`) → same model for this many seconds (0 or absent: off). */
  sticky_seconds: z.number().int().min(0).max(86400).optional(),
  created: z.number().int().nonnegative().optional(),
  updated: z.number().int().nonnegative().optional(),
});
export type RoutingPolicy = z.infer<typeof RoutingPolicy>;
export type RoutingPolicyInput = z.input<typeof RoutingPolicy>;

/**
 * Save-time checks against the catalog: every pool model exists, is active and is a chat
 * model. Returns the problems (empty: fine), each naming the model.
 */
export function poolProblems(pool: readonly string[], catalog: Catalog): string[] {
  const problems: string[] = [];
  for (const id of pool) {
    if (id.startsWith(ROUTER_PREFIX)) {
      problems.push(`'${id}' is a router; a pool lists catalog models only`);
      continue;
    }
    const model = catalog.models.find((m) => m.id === id);
    if (!model) problems.push(`'${id}' is not in the catalog`);
    else if (model.kind !== "chat") {
      const article = model.kind === "embedding" ? "an" : "a";
      problems.push(`'${id}' is ${article} ${model.kind} model, not a chat model`);
    } else if (model.state !== "active") problems.push(`'${id}' is disabled in the catalog`);
  }
  return problems;
}

/** The policy id in `router/<id>`, or undefined for any other model string. */
export function routerPolicyId(model: string): string | undefined {
  return model.startsWith(ROUTER_PREFIX) ? model.slice(ROUTER_PREFIX.length) : undefined;
}
