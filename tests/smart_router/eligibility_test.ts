/**
 * The smart router with the shipped catalog: a pool model whose first route would refuse the
 * request under rule 7 is not eligible (as one without `response_format` support is not), so the
 * request goes to a pool model that can serve it; a pool without quality figures dials along the
 * price order and says so in `x-sovra-routing-reason`; `served_model` is the catalog model.
 */
import assert from "node:assert/strict";
import { startShippedGateway } from "../helpers/shipped_catalog.ts";
import { decide, priceRanks } from "../../src/smart_router/decide.ts";
import { RoutingPolicy } from "../../src/smart_router/policy.ts";
import type { Model } from "../../src/catalog/schema.ts";

const HARD =
  "Prove that there are infinitely many primes p such that p + 2 is also prime, or explain precisely why this is open.";

const TOOLS = [{
  type: "function",
  function: { name: "record", parameters: { type: "object", properties: {} } },
}];

Deno.test("router — parallel_tool_calls false skips the Bedrock Claude pool model and serves on Mistral", async () => {
  await using g = await startShippedGateway();
  await g.admin(["routing", "create"], {
    org: g.org,
    id: "structured",
    pool: "anthropic/claude-sonnet-4-5,mistral/mistral-large-2512",
    threshold: "10",
  });
  const response = await g.post("/v1/chat/completions", {
    model: "router/structured",
    tools: TOOLS,
    tool_choice: "auto",
    parallel_tool_calls: false,
    messages: [{ role: "user", content: HARD }],
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("x-sovra-routed-model"), "mistral/mistral-large-2512");
  assert.equal((await response.json()).model, "mistral/mistral-large-2512");
  assert.equal(g.bedrock.requests.length, 0);
  // Without the flag the strongest pool model serves: the exclusion was the refusal's.
  const plain = await g.post("/v1/chat/completions", {
    model: "router/structured",
    tools: TOOLS,
    messages: [{ role: "user", content: HARD }],
  });
  assert.equal(plain.headers.get("x-sovra-routed-model"), "anthropic/claude-sonnet-4-5");
  await plain.text();
});

Deno.test("router — a pool without quality figures follows the price order, and says so", async () => {
  await using g = await startShippedGateway();
  const pool = "mistral/mistral-small-2603,mistral/codestral-2508,mistral/mistral-medium-3-5";
  for (const [id, threshold] of [["low", "1"], ["high", "10"]] as const) {
    await g.admin(["routing", "create"], { org: g.org, id, pool, threshold });
  }
  const ask = async (policy: string) => {
    const response = await g.post("/v1/chat/completions", {
      model: `router/${policy}`,
      messages: [{ role: "user", content: HARD }],
    });
    assert.equal(response.status, 200);
    await response.text();
    return {
      model: response.headers.get("x-sovra-routed-model"),
      reason: response.headers.get("x-sovra-routing-reason") ?? "",
    };
  };
  const low = await ask("low");
  const high = await ask("high");
  assert.equal(low.model, "mistral/mistral-small-2603", "T=1: the cheapest");
  assert.equal(high.model, "mistral/mistral-medium-3-5", "T=10: the dearest");
  assert.match(high.reason, /quality proxy: price order/);
  await g.gateway.deps.settler.idle();
  await g.gateway.deps.store.flushed();
  const rows = await g.gateway.deps.store.listRequests(g.org, 10);
  assert.deepEqual(rows.map((r) => r.served_model).sort(), [
    "mistral/mistral-medium-3-5",
    "mistral/mistral-small-2603",
  ]);
});

Deno.test("router — a direct request's served_model is the catalog model, not the upstream id", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "meta/llama-3.3-70b-instruct",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(response.status, 200);
  await response.text();
  await g.gateway.deps.settler.idle();
  await g.gateway.deps.store.flushed();
  const [row] = await g.gateway.deps.store.listRequests(g.org, 1);
  assert.equal(row!.served_model, "meta/llama-3.3-70b-instruct");
  assert.equal(row!.provider, "scaleway");
});

function bare(id: string, price: number): Model {
  return {
    id,
    kind: "chat",
    state: "active",
    sovereignty: "strict",
    pricing: { prompt_micro_eur_per_million: price, completion_micro_eur_per_million: price },
    supported_parameters: [],
    routes: [{ provider: "p", upstream_model: id }],
  };
}

Deno.test("decide — refuses() removes a model; priceRanks orders 0..1 with ties sharing", () => {
  assert.deepEqual(priceRanks([5, 1, 5, 3]), [1, 0, 1, 0.5]);
  assert.deepEqual(priceRanks([2, 2]), [0, 0]);
  const models = [bare("a/cheap", 1), bare("b/dear", 9)];
  const decision = decide({
    policy: RoutingPolicy.parse({ id: "p", pool: ["a/cheap", "b/dear"], threshold: 10 }),
    model: (id) => models.find((m) => m.id === id),
    needs: {
      tools: false,
      reasoning: false,
      responseFormat: false,
      promptTokens: 1,
      maxTokens: undefined,
    },
    classification: { difficulty: 0.9, task: "general", noSignal: false },
    threshold: 10,
    health: () => undefined,
    refuses: (m) => (m.id === "b/dear" ? "refused on p (tool_choice)" : undefined),
  });
  assert.deepEqual(decision.order.map((m) => m.id), ["a/cheap"]);
  assert.deepEqual(decision.excluded, [{ id: "b/dear", reason: "refused on p (tool_choice)" }]);
});
