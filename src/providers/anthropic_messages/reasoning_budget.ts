/**
 * From the client's `reasoning` object to an Anthropic thinking budget.
 *
 * Mapping (documented in src/providers/REBUILDING.md):
 * - effort `minimal` and `low` → 1024 tokens (Anthropic's minimum), `medium` → 4096,
 *   `high` → 16384, `xhigh` → 32000; `reasoning.max_tokens` wins over `effort`
 *   (raised to 1024 when below); `enabled: true` alone → `medium`.
 * - effort `none` or `enabled: false` → no thinking.
 * - The budget must stay below `max_tokens`. When the client set `max_tokens`, the budget is
 *   clamped to `max_tokens - 1`; if that is below 1024, `max_tokens` is raised to
 *   1024 + the client's value. Without a client `max_tokens`, the default (catalog
 *   `limits.default_max_tokens`, else 4096) is kept for the answer and the budget is added
 *   on top when it would not fit.
 * Thinking is only sent for models whose catalog entry has a `reasoning` block (rule 1: a
 * parameter the model does not support is removed).
 */
import type { ChatRequest, ReasoningRequest } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import { wantedReasoning } from "../../canonical/thinking.ts";

/** Anthropic requires `max_tokens`; used when neither the client nor the catalog gives one. */
export const FALLBACK_MAX_TOKENS = 4096;
export const MIN_THINKING_BUDGET = 1024;

const EFFORT_BUDGET = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
  xhigh: 32000,
} as const;

/** The reasoning the gateway will ask for, or undefined when thinking stays off. */
export function effectiveReasoning(
  request: ChatRequest,
  route: ResolvedRoute,
): ReasoningRequest | undefined {
  return wantedReasoning(route.model.reasoning, request.reasoning);
}

/**
 * Reasoning for an Anthropic model, where thinking must be replayable: in an open tool loop
 * (the last assistant turn called tools and only tool results follow) Anthropic rejects a
 * request with thinking on unless that turn carries its thinking blocks. A client that asked
 * `reasoning.exclude` never had them to send back, so such a step runs without thinking.
 */
export function anthropicReasoning(
  request: ChatRequest,
  route: ResolvedRoute,
): ReasoningRequest | undefined {
  const reasoning = effectiveReasoning(request, route);
  if (reasoning === undefined) return undefined;
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role === "tool") continue;
    if (message.role !== "assistant" || !message.toolCalls?.length) return reasoning;
    const replayable = (message.reasoningDetails ?? []).some((d) =>
      (d.type === "reasoning.text" && d.signature) || d.type === "reasoning.encrypted"
    );
    return replayable ? reasoning : undefined;
  }
  return reasoning;
}

export interface TokenPlan {
  maxTokens: number;
  /** Thinking budget, when thinking is on. */
  thinkingBudget: number | undefined;
}

/** Decides `max_tokens` and the thinking budget together. */
export function planTokens(
  request: ChatRequest,
  route: ResolvedRoute,
  reasoning: ReasoningRequest | undefined,
): TokenPlan {
  const fallback = route.model.limits?.default_max_tokens ?? FALLBACK_MAX_TOKENS;
  const clientMax = request.maxTokens;
  if (reasoning === undefined) {
    return { maxTokens: clientMax ?? fallback, thinkingBudget: undefined };
  }
  const wanted = budgetFor(reasoning);
  if (clientMax === undefined) {
    return { maxTokens: wanted >= fallback ? wanted + fallback : fallback, thinkingBudget: wanted };
  }
  const clamped = Math.min(wanted, clientMax - 1);
  if (clamped < MIN_THINKING_BUDGET) {
    return { maxTokens: MIN_THINKING_BUDGET + clientMax, thinkingBudget: MIN_THINKING_BUDGET };
  }
  return { maxTokens: clientMax, thinkingBudget: clamped };
}

function budgetFor(reasoning: ReasoningRequest): number {
  if (reasoning.maxTokens !== undefined) {
    return Math.max(MIN_THINKING_BUDGET, Math.floor(reasoning.maxTokens));
  }
  switch (reasoning.effort) {
    case undefined:
      return EFFORT_BUDGET.medium;
    case "none":
      return MIN_THINKING_BUDGET;
    case "minimal":
    case "low":
    case "medium":
    case "high":
    case "xhigh":
      return EFFORT_BUDGET[reasoning.effort];
    default:
      return EFFORT_BUDGET.medium;
  }
}

/** The effort Nova 2's `reasoningConfig.maxReasoningEffort` understands. */
export function novaEffort(reasoning: ReasoningRequest): "low" | "medium" | "high" {
  switch (reasoning.effort) {
    case "minimal":
    case "low":
      return "low";
    case "high":
    case "xhigh":
      return "high";
    default:
      return "medium";
  }
}
