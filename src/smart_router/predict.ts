/**
 * The predicted traffic split and cost of a policy on the built-in sample set, through the
 * same classifier and decision code as live requests (no metrics: `metrics` policies are
 * shown as their order with no live samples, i.e. the pool median for every model).
 */
import type { Model } from "../catalog/schema.ts";
import { classifyText } from "./classifier.ts";
import { decide, requestPrice } from "./decide.ts";
import type { RoutingPolicy } from "./policy.ts";
import { SAMPLE_PROMPTS } from "./sample_prompts.ts";

export interface Prediction {
  /** Model id → share of the sample (0–1), pool order. */
  share: Record<string, number>;
  /** Estimated micro-EUR per 1,000 such requests (400 completion tokens each). */
  costPer1000MicroEur: number;
  /** The same for always the most expensive eligible pool model. */
  strongestCostPer1000MicroEur: number;
  requests: number;
}

export function predictSplit(
  policy: RoutingPolicy,
  model: (id: string) => Model | undefined,
  prompts: readonly string[] = SAMPLE_PROMPTS,
): Prediction {
  const share: Record<string, number> = Object.fromEntries(policy.pool.map((id) => [id, 0]));
  let cost = 0;
  let strongest = 0;
  for (const prompt of prompts) {
    const needs = {
      tools: false,
      reasoning: false,
      responseFormat: false,
      promptTokens: Math.ceil(prompt.length / 4),
      maxTokens: undefined,
    };
    const decision = decide({
      policy,
      model,
      needs,
      classification: classifyText(prompt),
      threshold: policy.threshold,
      health: () => undefined,
      exploration: 0,
    });
    const chosen = decision.order[0];
    if (!chosen) continue;
    share[chosen.id] = (share[chosen.id] ?? 0) + 1;
    cost += requestPrice(chosen, needs);
    strongest += Math.max(...decision.order.map((m) => requestPrice(m, needs)));
  }
  for (const id of Object.keys(share)) share[id] = share[id]! / prompts.length;
  return {
    share,
    costPer1000MicroEur: Math.round((cost / prompts.length) * 1000),
    strongestCostPer1000MicroEur: Math.round((strongest / prompts.length) * 1000),
    requests: prompts.length,
  };
}
