/**
 * The routing decision for one request: which pool models may serve it, and in which order
 * to try them (the first is the choice, the rest the fallbacks of rule 4).
 *
 * The candidate list is built only from `policy.pool`: no other model can come out of here.
 * Eligible = pool ∩ active chat models ∩ allowed by the organization's policy ∩ able to serve
 * this request (tools, reasoning, response_format, context length, and a first route that would
 * not refuse it under rule 7).
 */
import type { Model } from "../catalog/schema.ts";
import type { ChatRequest } from "../canonical/chat.ts";
import type { Classification } from "./classifier.ts";
import { dialPosition, neededQuality, tierFor } from "./dial.ts";
import type { MetricWeights, RoutingPolicy } from "./policy.ts";
import { cacheablePromptChars } from "../canonical/prompt_cache.ts";

/** What a request needs from a model. */
export interface RequestNeeds {
  tools: boolean;
  reasoning: boolean;
  responseFormat: boolean;
  /** Estimated prompt tokens (characters / 4: no tokenizer on the hot path). */
  promptTokens: number;
  /** Of those, the prompt up to its last cache breakpoint (0 without breakpoints). */
  cacheablePromptTokens?: number;
  maxTokens: number | undefined;
  /** The pool model whose provider holds this request's prompt cache (cache affinity). */
  warmModel?: string | undefined;
}

/** Completion tokens assumed for the price estimate when `max_tokens` is not given. */
export const TYPICAL_COMPLETION_TOKENS = 400;

export function requestNeeds(request: ChatRequest): RequestNeeds {
  let chars = 0;
  for (const m of request.messages) {
    chars += m.content?.length ?? 0;
    if (m.role === "assistant" && m.toolCalls) {
      for (const c of m.toolCalls) chars += c.function.arguments.length;
    }
  }
  const effort = request.reasoning?.effort;
  return {
    tools: Boolean(request.tools?.length || request.hostedTools?.length),
    reasoning: Boolean(
      (effort && effort !== "none") || request.reasoning?.maxTokens ||
        request.reasoning?.enabled,
    ),
    responseFormat: request.responseFormat !== undefined &&
      request.responseFormat.type !== "text",
    promptTokens: Math.ceil(chars / 4),
    cacheablePromptTokens: Math.ceil(cacheablePromptChars(request) / 4),
    maxTokens: request.maxTokens,
  };
}

/** Why a pool model cannot serve this request (undefined: it can). */
export function cannotServe(model: Model, needs: RequestNeeds): string | undefined {
  if (model.kind !== "chat") return "not a chat model";
  if (model.state !== "active") return "disabled";
  if (needs.tools && !model.supported_parameters.includes("tools")) return "no tools";
  if (needs.reasoning && !model.reasoning) return "no reasoning";
  if (needs.responseFormat && !model.supported_parameters.includes("response_format")) {
    return "no response_format";
  }
  if (model.context_length !== undefined) {
    const wanted = needs.promptTokens + (needs.maxTokens ?? 0);
    if (wanted > model.context_length) return "context too short";
  }
  return undefined;
}

/** Live health of a model (its primary route's EWMA metrics). */
export interface ModelHealth {
  requests: number;
  errorRate: number;
  latencyMs: number | undefined;
  ttftMs: number | undefined;
  tokensPerSecond: number | undefined;
}

/** Samples before a model's metrics count; below it the pool's median stands in. */
export const MIN_SAMPLES = 5;
/** A model with at least this recent error rate is passed over (tried last). */
export const MAX_ERROR_RATE = 0.5;
/** Share of `metrics` decisions that try a not-best model, so a recovered one is noticed. */
export const EXPLORATION = 0.05;

export interface DecisionInput {
  policy: RoutingPolicy;
  /** Catalog lookup; only pool ids are ever asked for. */
  model: (id: string) => Model | undefined;
  /** The organization's policy (sovereignty, blocked providers, ZDR): false = not allowed. */
  allowed?: ((model: Model) => boolean) | undefined;
  /**
   * Why the model's first route would refuse this request (rule 7: a rebuilding route that
   * cannot express it), or undefined. Such a model would answer 400, so it is not eligible.
   */
  refuses?: ((model: Model) => string | undefined) | undefined;
  needs: RequestNeeds;
  /** Strategy `auto`. */
  classification?: Classification | undefined;
  threshold: number;
  health: (model: Model) => ModelHealth | undefined;
  /** A model to keep (sticky end-user, tool-loop continuation), if still eligible. */
  pinned?: { model: string; reason: string } | undefined;
  /** Exploration coin for `metrics` (tests pass their own). */
  random?: (() => number) | undefined;
  exploration?: number | undefined;
}

export interface Decision {
  /** Choice first, then fallbacks; every entry is a pool model. */
  order: Model[];
  /** One-line reason for the response header. */
  reason: string;
  /** Pool models left out, with why. */
  excluded: { id: string; reason: string }[];
}

/**
 * Price of this request on a model, micro-EUR (estimate, for ranking only), cache-aware: on a
 * model that caches (`cache_control`), the prompt up to the last breakpoint is priced at the
 * cached price where the model's provider holds this session's cache (`warmModel`), else at the
 * cache-write price (the first request writes it); the rest at the prompt price.
 */
export function requestPrice(model: Model, needs: RequestNeeds): number {
  const out = needs.maxTokens ?? TYPICAL_COMPLETION_TOKENS;
  const pricing = model.pricing;
  const prompt = pricing.prompt_micro_eur_per_million ?? 0;
  const caches = model.supported_parameters.includes("cache_control");
  const cacheable = caches ? Math.min(needs.cacheablePromptTokens ?? 0, needs.promptTokens) : 0;
  const cacheRate = needs.warmModel === model.id
    ? pricing.cached_prompt_micro_eur_per_million ?? prompt
    : pricing.cache_write_micro_eur_per_million ?? prompt;
  return ((needs.promptTokens - cacheable) * prompt + cacheable * cacheRate +
    out * (pricing.completion_micro_eur_per_million ?? 0)) / 1e6;
}

export function qualityOf(model: Model, task?: string): number | undefined {
  const q = model.quality as Record<string, number> | undefined;
  if (!q) return undefined;
  return (task ? q[task] : undefined) ?? q.overall;
}

function unhealthy(h: ModelHealth | undefined): boolean {
  return h !== undefined && h.requests >= MIN_SAMPLES && h.errorRate >= MAX_ERROR_RATE;
}

export function decide(input: DecisionInput): Decision {
  const excluded: Decision["excluded"] = [];
  const eligible: Model[] = [];
  for (const id of input.policy.pool) {
    const model = input.model(id);
    if (!model) {
      excluded.push({ id, reason: "not in the catalog" });
      continue;
    }
    const why = cannotServe(model, input.needs) ??
      (input.allowed && !input.allowed(model)
        ? "not allowed by the organization policy"
        : undefined) ??
      input.refuses?.(model);
    if (why) excluded.push({ id, reason: why });
    else eligible.push(model);
  }
  if (eligible.length === 0) return { order: [], reason: "no eligible model", excluded };

  // Each model's health is read once per decision (the strategies read it again).
  const healthOf = new Map<Model, ModelHealth | undefined>();
  for (const m of eligible) healthOf.set(m, input.health(m));
  const health = (m: Model) => healthOf.get(m);
  // Failing models go last: still fallbacks, never the first choice while others are well.
  const well: Model[] = [];
  const failing: Model[] = [];
  for (const m of eligible) (unhealthy(healthOf.get(m)) ? failing : well).push(m);

  const pinned = input.pinned && well.find((m) => m.id === input.pinned!.model);
  let order: Model[];
  let reason: string;
  if (well.length === 0) {
    order = failing;
    reason = "all eligible models failing; trying them in pool order";
  } else if (input.policy.strategy === "ordered") {
    order = well;
    reason = "ordered: pool order";
  } else if (input.policy.strategy === "metrics") {
    ({ order, reason } = byMetrics(well, input, health));
  } else {
    ({ order, reason } = byDial(well, input, health));
  }
  if (pinned && order[0] !== pinned) {
    order = [pinned, ...order.filter((m) => m !== pinned)];
    reason = input.pinned!.reason;
  } else if (pinned) {
    reason = input.pinned!.reason;
  }
  if (well.length > 0) order = [...order, ...failing];
  // `metrics` explores: now and then a not-first eligible model (failing ones included) goes
  // first, so a slowed or failed model that recovered is noticed.
  const random = input.random ?? Math.random;
  if (
    input.policy.strategy === "metrics" && !pinned && order.length > 1 &&
    random() < (input.exploration ?? EXPLORATION)
  ) {
    const explored = order[1 + Math.floor(random() * (order.length - 1))]!;
    order = [explored, ...order.filter((m) => m !== explored)];
    reason = `metrics: exploring ${explored.id}`;
  }
  if (failing.length > 0 && well.length > 0) {
    reason += `; passed over (error rate): ${failing.map((m) => m.id).join(",")}`;
  }
  return { order, reason, excluded };
}

/** Strategy `auto`: cheapest frontier model meeting the quality the dial asks for. */
function byDial(
  models: Model[],
  input: DecisionInput,
  health: (model: Model) => ModelHealth | undefined,
): { order: Model[]; reason: string } {
  const c = input.classification ?? { difficulty: 0.5, task: "general" as const, noSignal: true };
  const task = c.task === "general" ? undefined : c.task;
  const known = models.map((m) => qualityOf(m, task)).filter((q): q is number => q !== undefined)
    .sort((a, b) => a - b);
  const fallbackQ = known.length ? known[Math.floor(known.length / 2)]! : 0.5;
  const prices = models.map((model) => requestPrice(model, input.needs));
  // No model has a quality figure: the price order stands in for it (dearer = stronger), so
  // the dial still spans the pool instead of every model tying at one fallback figure.
  const proxy = known.length === 0 ? priceRanks(prices) : undefined;
  const scored = models.map((model, index) => ({
    model,
    index,
    price: prices[index]!,
    quality: proxy?.[index] ?? qualityOf(model, task) ?? fallbackQ,
  }));
  // Pareto frontier: drop a model when another is no more expensive and at least as good.
  const frontier = scored.filter((a) =>
    !scored.some((b) =>
      b !== a && b.price <= a.price && b.quality >= a.quality &&
      (b.price < a.price || b.quality > a.quality || b.index < a.index)
    )
  ).sort((a, b) => a.quality - b.quality || a.price - b.price);
  const qs = frontier.map((f) => f.quality);
  const s = dialPosition(c.difficulty, input.threshold);
  const needed = neededQuality(s, qs[0]!, qs[qs.length - 1]!);
  let pick = tierFor(qs, needed);
  // Live health breaks near-ties: a next tier up that costs at most 10 % more and answers
  // faster wins (upward only, so the dial stays monotone).
  const next = frontier[pick + 1];
  const here = frontier[pick]!;
  if (next && next.price <= here.price * 1.1) {
    const a = health(here.model)?.ttftMs;
    const b = health(next.model)?.ttftMs;
    if (a !== undefined && b !== undefined && b < a) pick++;
  }
  const chosen = frontier[pick]!;
  const up = frontier.slice(pick + 1);
  const down = frontier.slice(0, pick).reverse();
  const rest = scored.filter((x) => !frontier.includes(x))
    .sort((a, b) => b.quality - a.quality || a.price - b.price);
  const order = [chosen, ...up, ...down, ...rest].map((x) => x.model);
  const reason = `auto: difficulty ${c.difficulty.toFixed(2)}${c.noSignal ? " (no signal)" : ""}` +
    `, task ${c.task}, threshold ${input.threshold} -> needs quality ${needed.toFixed(2)}` +
    `; cheapest meeting it: ${chosen.model.id} (${chosen.quality.toFixed(2)})` +
    (proxy ? "; quality proxy: price order (no quality figures in the pool)" : "");
  return { order, reason };
}

/**
 * Each price's rank in the pool scaled to 0–1 (cheapest 0, dearest 1; equal prices share a rank):
 * the quality proxy when no pool model carries a quality figure.
 */
export function priceRanks(prices: readonly number[]): number[] {
  const distinct = [...new Set(prices)].sort((a, b) => a - b);
  const top = Math.max(1, distinct.length - 1);
  return prices.map((p) => distinct.indexOf(p) / top);
}

const METRIC_KEYS = ["latency", "ttft", "throughput", "error_rate", "price"] as const;

/**
 * Strategy `metrics`: weighted live metrics, each relative to the worst eligible model
 * (value / max: 1 for the worst, proportionally less for better ones; throughput counts as
 * 1 − tps / max tps; the error rate, already a share, counts as it is); lower total wins.
 */
function byMetrics(
  models: Model[],
  input: DecisionInput,
  health: (model: Model) => ModelHealth | undefined,
): { order: Model[]; reason: string } {
  const weights: MetricWeights = input.policy.weights ??
    { latency: 0, ttft: 1, throughput: 0, error_rate: 1, price: 0 };
  const raw = models.map((m) => {
    const h = health(m);
    const sampled = h !== undefined && h.requests >= MIN_SAMPLES;
    return {
      latency: sampled ? h.latencyMs : undefined,
      ttft: sampled ? h.ttftMs ?? h.latencyMs : undefined,
      throughput: sampled ? h.tokensPerSecond : undefined,
      error_rate: sampled ? h.errorRate : undefined,
      price: requestPrice(m, input.needs),
    };
  });
  const score = models.map(() => 0);
  for (const key of METRIC_KEYS) {
    const w = weights[key];
    if (w <= 0) continue;
    const values = raw.map((r) => r[key]).filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
    if (values.length === 0) continue;
    // Unsampled models take the median: neither favoured nor shunned.
    const median = values[Math.floor(values.length / 2)]!;
    const max = values[values.length - 1]!;
    if (max <= 0 && key !== "error_rate") continue;
    raw.forEach((r, i) => {
      const v = r[key] ?? median;
      const norm = key === "error_rate" ? v : key === "throughput" ? 1 - v / max : v / max;
      score[i]! += w * norm;
    });
  }
  const ranked = models.map((model, i) => ({ model, i, score: score[i]! }))
    .sort((a, b) => a.score - b.score || a.i - b.i);
  const order = ranked.map((r) => r.model);
  const reason = `metrics: best score ${ranked[0]!.score.toFixed(2)} of ${models.length}`;
  return { order, reason };
}
