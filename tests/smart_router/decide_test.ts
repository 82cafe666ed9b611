import assert from "node:assert/strict";
import type { Model } from "../../src/catalog/schema.ts";
import {
  decide,
  type DecisionInput,
  type ModelHealth,
  type RequestNeeds,
  requestNeeds,
} from "../../src/smart_router/decide.ts";
import { RoutingPolicy, type RoutingPolicyInput } from "../../src/smart_router/policy.ts";

function model(id: string, q: number, price: number, extra: Partial<Model> = {}): Model {
  return {
    id,
    kind: "chat",
    state: "active",
    sovereignty: "strict",
    pricing: { prompt_micro_eur_per_million: price, completion_micro_eur_per_million: price },
    supported_parameters: ["tools", "response_format"],
    quality: { overall: q },
    context_length: 100_000,
    routes: [{ provider: id.split("/")[0]!, upstream_model: id.split("/")[1]! }],
    ...extra,
  };
}

const small = model("a/small", 0.3, 100_000);
const medium = model("b/medium", 0.5, 400_000);
const large = model("c/large", 0.7, 2_000_000, {
  reasoning: { supported_efforts: ["high"], supports_max_tokens: false, mandatory: false },
});
const notools = model("d/notools", 0.9, 50_000, { supported_parameters: [] });
const all = [small, medium, large, notools];

const plain: RequestNeeds = {
  tools: false,
  reasoning: false,
  responseFormat: false,
  promptTokens: 100,
  maxTokens: undefined,
};

function run(
  policy: RoutingPolicyInput,
  over: Partial<DecisionInput> = {},
  health: Record<string, ModelHealth> = {},
) {
  const p = RoutingPolicy.parse(policy);
  return decide({
    policy: p,
    model: (id) => all.find((m) => m.id === id),
    needs: plain,
    classification: { difficulty: 0.5, task: "general", noSignal: false },
    threshold: p.threshold,
    health: (m) => health[m.id],
    random: () => 0.99,
    ...over,
  });
}

const ids = (d: { order: Model[] }) => d.order.map((m) => m.id);

Deno.test("decide — auto: low dial picks the cheap end, high dial the strong end, fallbacks upward first", () => {
  const pool = ["a/small", "b/medium", "c/large"];
  assert.deepEqual(ids(run({ id: "x", pool, threshold: 1 })), ["a/small", "b/medium", "c/large"]);
  assert.deepEqual(ids(run({ id: "x", pool, threshold: 10 })), ["c/large", "b/medium", "a/small"]);
  const mid = run({ id: "x", pool, threshold: 5 });
  assert.equal(ids(mid)[0], "b/medium");
  assert.deepEqual(ids(mid), ["b/medium", "c/large", "a/small"]);
  assert.match(mid.reason, /^auto: difficulty 0\.50, task general, threshold 5 -> needs quality/);
});

Deno.test("decide — eligibility: tools, reasoning, response_format, context, organization policy", () => {
  const pool = ["a/small", "c/large", "d/notools"];
  const tools = run({ id: "x", pool, threshold: 10 }, { needs: { ...plain, tools: true } });
  assert.ok(!ids(tools).includes("d/notools"));
  assert.deepEqual(tools.excluded, [{ id: "d/notools", reason: "no tools" }]);
  const reasoning = run({ id: "x", pool }, { needs: { ...plain, reasoning: true } });
  assert.deepEqual(ids(reasoning), ["c/large"]);
  const json = run({ id: "x", pool }, { needs: { ...plain, responseFormat: true } });
  assert.ok(!ids(json).includes("d/notools"));
  const long = run({ id: "x", pool }, {
    needs: { ...plain, promptTokens: 99_000, maxTokens: 5_000 },
  });
  assert.deepEqual(ids(long), []);
  assert.equal(long.reason, "no eligible model");
  const policy = run({ id: "x", pool }, { allowed: (m) => m.id !== "a/small" });
  assert.ok(!ids(policy).includes("a/small"));
});

Deno.test("decide — requestNeeds reads tools, reasoning, response_format and size from the request", () => {
  const needs = requestNeeds({
    model: "router/x",
    messages: [{ role: "user", content: "x".repeat(400) }],
    stream: false,
    tools: [{ type: "function", function: { name: "f" } }],
    reasoning: { effort: "high" },
    responseFormat: { type: "json_object" },
    maxTokens: 50,
    extra: {},
  });
  assert.deepEqual(needs, {
    tools: true,
    reasoning: true,
    responseFormat: true,
    promptTokens: 100,
    cacheablePromptTokens: 0,
    maxTokens: 50,
  });
  const text = requestNeeds({
    model: "m",
    messages: [],
    stream: false,
    responseFormat: { type: "text" },
    reasoning: { effort: "none" },
    extra: {},
  });
  assert.equal(text.responseFormat, false);
  assert.equal(text.reasoning, false);
});

Deno.test("decide — a model failing recently goes last, never first while another is well", () => {
  const failing = { requests: 10, errorRate: 0.8, latencyMs: 100, ttftMs: 50, tokensPerSecond: 50 };
  const d = run({ id: "x", pool: ["a/small", "b/medium", "c/large"], threshold: 10 }, {}, {
    "c/large": failing,
  });
  assert.deepEqual(ids(d), ["b/medium", "a/small", "c/large"]);
  assert.match(d.reason, /passed over \(error rate\): c\/large/);
  // Below the minimum sample the error rate does not count yet.
  const young = run({ id: "x", pool: ["a/small", "c/large"], threshold: 10 }, {}, {
    "c/large": { ...failing, requests: 2 },
  });
  assert.equal(ids(young)[0], "c/large");
});

Deno.test("decide — metrics: the faster model wins; unsampled ones take the median; exploration", () => {
  const h = (ttft: number, requests = 20): ModelHealth => ({
    requests,
    errorRate: 0,
    latencyMs: ttft * 2,
    ttftMs: ttft,
    tokensPerSecond: 50,
  });
  const pool = ["a/small", "b/medium", "c/large"];
  const policy = { id: "x", pool, strategy: "metrics" as const };
  assert.deepEqual(
    ids(run(policy, {}, { "a/small": h(900), "b/medium": h(100), "c/large": h(500) })),
    ["b/medium", "c/large", "a/small"],
  );
  assert.equal(
    ids(run(policy, {}, { "a/small": h(900), "b/medium": h(100), "c/large": h(500, 1) }))[0],
    "b/medium",
  );
  // The coin comes up: a not-first model is tried first.
  const coins = [0.01, 0.99];
  const explored = run(policy, { random: () => coins.shift() ?? 0.5 }, {
    "a/small": h(900),
    "b/medium": h(100),
    "c/large": h(500),
  });
  assert.equal(ids(explored)[0], "a/small");
  assert.match(explored.reason, /^metrics: exploring a\/small/);
  // Price weight only: the cheapest wins.
  const cheap = run({ ...policy, weights: { price: 1, ttft: 0, error_rate: 0 } }, {}, {});
  assert.equal(ids(cheap)[0], "a/small");
});

Deno.test("decide — ordered keeps the pool order; a pin wins while its model is eligible and well", () => {
  const pool = ["c/large", "a/small", "b/medium"];
  assert.deepEqual(ids(run({ id: "x", pool, strategy: "ordered" })), pool);
  const pinned = run({ id: "x", pool, threshold: 1 }, {
    pinned: { model: "c/large", reason: "sticky end-user" },
  });
  assert.equal(ids(pinned)[0], "c/large");
  assert.equal(pinned.reason, "sticky end-user");
  const gone = run({ id: "x", pool: ["a/small", "b/medium"], threshold: 1 }, {
    pinned: { model: "c/large", reason: "sticky end-user" },
  });
  assert.equal(ids(gone)[0], "a/small");
});
