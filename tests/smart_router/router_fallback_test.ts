/**
 * Rule 4 through a router: an upstream 429, 5xx, connection error, 401 or 403 before the first
 * byte moves on to the next model of the routing policy; after the first byte nothing does.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { readToEnd } from "../helpers/sse.ts";
import { SMALL, startRouterHarness, upstreamModels } from "./router_support.ts";

const failing = (status: number) =>
  chatModel(`sim/f${status}`, `fail-${status}`, { quality: { overall: 0.5 } });
const DEAD = {
  ...chatModel("dead/model", "anything", { quality: { overall: 0.5 } }),
  routes: [{ provider: "dead", upstream_model: "anything" }],
};
const DROPS = chatModel("sim/drops", "drop-after-3", { quality: { overall: 0.5 } });

Deno.test("router — falls back to the next pool model on 429, 5xx, connect errors, 401 and 403; not after the first byte", async () => {
  const models = [
    failing(429),
    failing(500),
    failing(503),
    failing(401),
    failing(403),
    DEAD,
    DROPS,
  ];
  await using h = await startRouterHarness({
    models,
    // Nothing listens on port 9 of 127.0.0.1: a connection error.
    providers: {
      dead: { dialect: "openai", base_url: "http://127.0.0.1:9/v1", api_key_env: "SIM_KEY" },
    },
  });
  const chain = ["sim/f429", "sim/f500", "sim/f503", "sim/f401", "sim/f403", "dead/model"];
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "chain",
    pool: [...chain, SMALL.id].join(","),
    strategy: "ordered",
  });
  for (const stream of [false, true]) {
    h.sim.reset();
    const res = await h.post("/v1/chat/completions", {
      model: "router/chain",
      messages: [{ role: "user", content: "hi" }],
      stream,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-sovra-routed-model"), SMALL.id);
    assert.match(
      res.headers.get("x-sovra-routing-reason")!,
      /ordered: pool order; served after 6 failed attempts/,
    );
    const body = await readToEnd(res);
    assert.ok(body.clean);
    assert.match(body.text, /"model":"sim\/small"/);
    assert.deepEqual(upstreamModels(h.sim.requests), [
      "fail-429",
      "fail-500",
      "fail-503",
      "fail-401",
      "fail-403",
      "small",
    ]);
  }
  await h.flushed();
  const [row] = await h.gateway.deps.store.listRequests(h.org, 1);
  assert.equal(row!.fallbacks, 6);
  assert.equal(row!.served_model, SMALL.id);

  // After the first byte: the stream is cut, the next pool model is never asked.
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "drop",
    pool: [DROPS.id, SMALL.id].join(","),
    strategy: "ordered",
  });
  h.sim.reset();
  const cut = await h.post("/v1/chat/completions", {
    model: "router/drop",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  assert.equal(cut.headers.get("x-sovra-routed-model"), DROPS.id);
  assert.equal((await readToEnd(cut)).clean, false);
  assert.deepEqual(upstreamModels(h.sim.requests), ["drop-after-3"]);
});
