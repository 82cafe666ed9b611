/**
 * The organization's policy decides what the router may choose: a strict-only organization is
 * never routed to a pragmatic pool model, whatever the prompt and the dial; a pool with only
 * pragmatic models is refused (403) before any provider call, with an error naming `router/<id>`.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { until } from "../helpers/until.ts";
import { DEFAULT_ORG_POLICY } from "../../src/state/policy_store.ts";
import {
  LARGE,
  MIXED_PROMPTS,
  SMALL,
  startRouterHarness,
  upstreamModels,
} from "./router_support.ts";

const PRAGMATIC = chatModel("sim/pragmatic", "pragmatic", {
  sovereignty: "pragmatic",
  pricing: { prompt_micro_eur_per_million: 1, completion_micro_eur_per_million: 1 },
  quality: { overall: 0.99 },
});

Deno.test("router — a strict-only organization is never routed to a pragmatic pool model", async () => {
  await using h = await startRouterHarness({
    models: [PRAGMATIC],
    env: { SOVRA_KEY_CACHE_SECONDS: "1" },
  });
  for (const t of [1, 5, 10]) {
    await h.admin(["routing", "create"], {
      org: h.org,
      id: `p${t}`,
      pool: [PRAGMATIC.id, SMALL.id, LARGE.id].join(","),
      threshold: String(t),
    });
  }
  await h.admin(["routing", "create"], { org: h.org, id: "only", pool: PRAGMATIC.id });
  // Before the policy: the pragmatic model (cheapest and best) serves.
  const before = await h.post("/v1/chat/completions", {
    model: "router/p10",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(before.headers.get("x-sovra-routed-model"), PRAGMATIC.id);
  await before.body?.cancel();

  await h.store.putOrgPolicy(
    h.org,
    { ...DEFAULT_ORG_POLICY, sovereignty: "strict_only" },
    "test",
  );
  // Until the harness's key and policy cache (1 s) has read the new policy.
  await until("the strict policy in effect", async () => {
    const res = await h.post("/v1/chat/completions", {
      model: "router/p10",
      messages: [{ role: "user", content: "hi" }],
    });
    await res.body?.cancel();
    return res.headers.get("x-sovra-routed-model") !== PRAGMATIC.id;
  });
  h.sim.reset();
  for (const t of [1, 5, 10]) {
    for (const prompt of MIXED_PROMPTS) {
      const res = await h.post("/v1/chat/completions", {
        model: `router/p${t}`,
        messages: [{ role: "user", content: prompt }],
      });
      assert.equal(res.status, 200);
      assert.notEqual(res.headers.get("x-sovra-routed-model"), PRAGMATIC.id);
      await res.body?.cancel();
    }
  }
  assert.ok(!upstreamModels(h.sim.requests).includes("pragmatic"));
  const refused = await h.post("/v1/chat/completions", {
    model: "router/only",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(refused.status, 403);
  const error = (await refused.json()).error;
  assert.equal(error.code, "policy_forbids_model");
  // The error names the model the client asked for, the router, not the pool's first model;
  // the reason comes from the pool's routes.
  assert.match(error.message, /for model 'router\/only'/);
  assert.doesNotMatch(error.message, /for model 'sim\/pragmatic'/);
  assert.match(error.message, /strict/i);
  assert.ok(!upstreamModels(h.sim.requests).includes("pragmatic"));
});
