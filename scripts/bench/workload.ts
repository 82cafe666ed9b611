/**
 * What the benchmark sends: the catalog models Sovra serves, the upstream model names the
 * simulator reads its behaviour from, and one request body per scenario. Every target gets
 * the same body; only the `model` differs (catalog id for Sovra, upstream name otherwise).
 */

/**
 * `router`: non-streamed, Sovra addressed as `router/bench` (the smart router's added cost);
 * `slow-upstream`: streams whose upstream takes 50 ms to its first token (paced only).
 */
export type ScenarioName = "non-stream" | "stream" | "router" | "slow-upstream";
/**
 * `sovra-unguarded`: the name of this checkout in `--baseline` runs (older code had a
 *   connection relay it ran without; this one has none);
 * `portkey` / `litellm`: the peers of `--peers` (peers.ts).
 */
export type TargetName =
  | "direct"
  | "bare-proxy"
  | "sovra"
  | "sovra-unguarded"
  | "portkey"
  | "litellm";

export const SCENARIOS: readonly ScenarioName[] = [
  "non-stream",
  "stream",
  "router",
  "slow-upstream",
];
/**
 * The production-shaped scenarios (production_load.ts against production_upstream.ts): streams
 * whose first chunk comes after 300 ms and 40 chunks 25 ms apart, and non-stream answers after
 * 800 ms, arrivals paced so that about 1,000 requests are open at once.
 */
export type ProductionScenario = "prod-stream" | "prod-non-stream";
export const PRODUCTION_SCENARIOS: readonly ProductionScenario[] = [
  "prod-stream",
  "prod-non-stream",
];
/**
 * Measurements of their own beside the scenarios: spread-out streams, isolates, open streams,
 * the instance-wide limits' cost on the gate's steps.
 */
export type ExtraPart = "spread" | "workers" | "open-streams" | "shared-limits";
export const EXTRA_PARTS: readonly ExtraPart[] = [
  "spread",
  "workers",
  "open-streams",
  "shared-limits",
];
/** What `--scenarios` can name (every one by default). */
export type RunPart = ScenarioName | ProductionScenario | ExtraPart;
export const RUN_PARTS: readonly RunPart[] = [
  ...SCENARIOS,
  ...PRODUCTION_SCENARIOS,
  ...EXTRA_PARTS,
];

/** The `--scenarios` list: known names in the order given; an unknown one is an error. */
export function parseRunParts(raw: string): RunPart[] {
  const names = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const unknown = names.filter((n) => !(RUN_PARTS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown --scenarios ${unknown.map((n) => `'${n}'`).join(", ")}; known: ${
        RUN_PARTS.join(", ")
      }.`,
    );
  }
  return names as RunPart[];
}
export const TARGETS: readonly TargetName[] = ["direct", "bare-proxy", "sovra", "sovra-unguarded"];
/** Scenarios the peers run (the router scenario is Sovra's own feature). */
export const PEER_SCENARIOS: readonly ScenarioName[] = ["non-stream", "stream", "slow-upstream"];

/** Exactly 50 streamed content chunks (the simulator's `chunks-50`). */
export const CHAT_UPSTREAM = "bench+chunks-50";
/** One second before the answer and between chunks: ~6 s per stream. */
export const SLOW_UPSTREAM = "bench+slow-1000+chunks-5";
/** 50 ms to the response and its first chunk, then 50 ms between chunks (time to first byte). */
export const TTFB_UPSTREAM = "bench+slow-50+chunks-3";
/** Chunks spread out as production streams arrive: 20 ms apart, 50 of them (~1 s a stream). */
export const SPREAD_GAP_MS = 20;
export const SPREAD_UPSTREAM = `bench+slow-${SPREAD_GAP_MS}+chunks-50`;

export const BENCH_MODELS = {
  chat: { id: "bench/chat", upstream: CHAT_UPSTREAM },
  slow: { id: "bench/slow", upstream: SLOW_UPSTREAM },
  ttfb: { id: "bench/ttfb", upstream: TTFB_UPSTREAM },
  spread: { id: "bench/spread", upstream: SPREAD_UPSTREAM },
  /** Served by production_upstream.ts, whose timing and answer do not depend on the name. */
  prod: { id: "bench/prod", upstream: "bench+prod" },
} as const;

/** The `router` scenario's policy: an `auto` pool of two models on the same upstream. */
export const ROUTER_POLICY = "bench";
export const ROUTER_POOL_EXTRA = { id: "bench/chat-lite", upstream: CHAT_UPSTREAM } as const;

/** One HTTP request as a load generator replays it. */
export interface RequestSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Where a target listens and how it is addressed. */
export interface Endpoint {
  /** Base URL without `/v1`, e.g. `http://127.0.0.1:1234`. */
  base: string;
  /** Bearer token to send (the simulator and bare proxy accept any). */
  key: string;
  /** Sovra takes catalog ids; the others take the upstream model name. */
  catalog: boolean;
  /** Extra request headers (a peer's routing headers). */
  headers?: Record<string, string>;
}

const MESSAGES = [
  { role: "system", content: "You are a concise assistant for a European logistics company." },
  {
    role: "user",
    content: "Summarise in two sentences what the harbour master reported about the weather " +
      "this morning, and whether the boats left on schedule.",
  },
];

/** The chat request a scenario sends to an endpoint. */
export function chatRequest(
  endpoint: Endpoint,
  options: { stream: boolean; model?: keyof typeof BENCH_MODELS; router?: boolean },
): RequestSpec {
  const model = BENCH_MODELS[options.model ?? "chat"];
  const catalogId = options.router ? `router/${ROUTER_POLICY}` : model.id;
  const body: Record<string, unknown> = {
    model: endpoint.catalog ? catalogId : model.upstream,
    messages: MESSAGES,
    max_tokens: 256,
    temperature: 0.2,
  };
  if (options.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return {
    url: `${endpoint.base}/v1/chat/completions`,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${endpoint.key}`,
      ...endpoint.headers,
    },
    body: JSON.stringify(body),
  };
}
