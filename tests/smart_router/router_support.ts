/** A test catalog and helpers for the smart router's HTTP tests. */
import {
  chatModel,
  type HarnessOptions,
  startHarness,
  type TestModel,
} from "../helpers/harness.ts";

const price = (p: number) => ({
  prompt_micro_eur_per_million: p,
  completion_micro_eur_per_million: 3 * p,
});

/** Pool candidates, cheapest and weakest first. */
export const SMALL = chatModel("sim/small", "small", {
  pricing: price(100_000),
  quality: { overall: 0.3 },
  context_length: 100_000,
});
export const MEDIUM = chatModel("sim/medium", "medium", {
  pricing: price(500_000),
  quality: { overall: 0.5 },
  context_length: 100_000,
});
export const LARGE = chatModel("sim/large", "large", {
  pricing: price(2_000_000),
  quality: { overall: 0.8 },
  context_length: 100_000,
  reasoning: { supported_efforts: ["low", "medium", "high"] },
});
/** Cheap and good, but no tools. */
export const NOTOOLS = chatModel("sim/notools", "notools", {
  pricing: price(50_000),
  quality: { overall: 0.9 },
  supported_parameters: ["temperature", "max_tokens"],
});
/** Cheap and excellent, with a small context. */
export const TINY_CONTEXT = chatModel("sim/tinyctx", "tinyctx", {
  pricing: price(60_000),
  quality: { overall: 0.95 },
  context_length: 2_000,
});
/** The best and cheapest of all: never in a pool, so it must never serve a router request. */
export const OUTSIDE = chatModel("sim/outside", "outside", {
  pricing: price(1),
  quality: { overall: 1 },
});

export const ROUTER_MODELS: TestModel[] = [SMALL, MEDIUM, LARGE, NOTOOLS, TINY_CONTEXT, OUTSIDE];

export function startRouterHarness(options: Partial<HarnessOptions> = {}) {
  return startHarness({
    ...options,
    models: [...ROUTER_MODELS, ...(options.models ?? [])],
    env: { SOVRA_ROUTER_POLICY_CACHE_MS: "0", ...options.env },
  });
}

/** Upstream model names the simulator was asked for, in order. */
export function upstreamModels(requests: { path: string; body: unknown }[]): string[] {
  return requests.filter((r) => r.path.endsWith("/chat/completions"))
    .map((r) => String((r.body as { model?: string }).model));
}

/** A mixed prompt set: small talk, writing, knowledge, maths, code, extraction. */
export const MIXED_PROMPTS = [
  "hi there, how are you?",
  "Write a haiku about autumn leaves.",
  "Tell me about the Treaty of Westphalia.",
  "What is the capital of Portugal?",
  "Solve for x: 3x + 7 = 22, and show each step.",
  "Write a Python function that merges two sorted linked lists and explain its complexity.",
  "Extract every date and amount from this invoice text as JSON: paid 120 EUR on 2026-03-01.",
  "Compare the trade-offs of optimistic and pessimistic locking in a write-heavy database, step by step, with the implications for latency and throughput under contention.",
];
