/**
 * Strategy `metrics` through HTTP: traffic moves away from a slowed model and from a failing
 * one, and back once it recovers (exploration notices it). Two models, each behind a
 * controllable proxy in front of the simulator. Shares over windows of requests, no timing
 * asserts: the slow proxy adds 150 ms, far above the simulator's own answer time.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startRouterHarness } from "./router_support.ts";
import { startControlProxy } from "./control_proxy.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";

Deno.test("router — metrics: away from a slowed model, away from a failing one, back after recovery", async () => {
  const sim = await startOpenAISimulator();
  const p1 = startControlProxy(sim.url);
  const p2 = startControlProxy(sim.url);
  const one = {
    ...chatModel("px/one", "one"),
    routes: [{ provider: "px1", upstream_model: "one" }],
  };
  const two = {
    ...chatModel("px/two", "two"),
    routes: [{ provider: "px2", upstream_model: "two" }],
  };
  const h = await startRouterHarness({
    models: [one, two],
    providers: {
      px1: { dialect: "openai", base_url: p1.url, api_key_env: "SIM_KEY" },
      px2: { dialect: "openai", base_url: p2.url, api_key_env: "SIM_KEY" },
    },
    env: { SOVRA_ROUTER_EXPLORATION_PERCENT: "20" },
  });
  try {
    await h.admin(["routing", "create"], {
      org: h.org,
      id: "live",
      pool: "px/one,px/two",
      strategy: "metrics",
      weights: "latency=1,error_rate=1",
    });
    const served = async (n: number): Promise<Record<string, number>> => {
      const counts: Record<string, number> = { "px/one": 0, "px/two": 0 };
      for (let i = 0; i < n; i++) {
        const res = await h.post("/v1/chat/completions", {
          model: "router/live",
          messages: [{ role: "user", content: "hi" }],
        });
        assert.equal(res.status, 200);
        counts[(await res.json()).model]!++;
      }
      return counts;
    };

    // Warm up: both get samples (exploration), neither is slow.
    await served(30);
    // px/one slowed: traffic moves to px/two.
    p1.delayMs = 150;
    await served(15);
    let share = await served(30);
    assert.ok(share["px/two"]! >= 15, `away from the slow model: ${JSON.stringify(share)}`);

    // px/two fails (503), px/one is fast again: every failure falls back to px/one, and px/two
    // is passed over once its error rate is high.
    p1.delayMs = 0;
    p2.failStatus = 503;
    await served(15);
    const hitsBefore = p2.hits;
    share = await served(30);
    assert.equal(share["px/two"], 0);
    assert.ok(share["px/one"] === 30);
    // Passed over: px/two was asked only by exploration, not as the first choice every time.
    assert.ok(p2.hits - hitsBefore <= 20, `px/two still tried first: ${p2.hits - hitsBefore}`);

    // px/two recovers and px/one slows again: exploration notices, traffic goes back.
    p2.failStatus = undefined;
    p1.delayMs = 150;
    await served(60);
    share = await served(30);
    assert.ok(share["px/two"]! >= 15, `back after recovery: ${JSON.stringify(share)}`);
  } finally {
    await h.close();
    await p1.close();
    await p2.close();
    await sim.close();
  }
});
