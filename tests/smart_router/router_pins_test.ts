/**
 * Pins through HTTP: a sticky end-user keeps its model; a tool-loop continuation stays on the
 * model that made the calls, even when the policy would now choose another; both hold on a
 * second instance on the same state (pins are shared through the store).
 */
import assert from "node:assert/strict";
import { LARGE, SMALL, startRouterHarness } from "./router_support.ts";
import { SIM_KEY } from "../helpers/harness.ts";
import { configFromEnv } from "../../src/config.ts";
import { startGateway } from "../../src/gateway.ts";
import { silentLogger } from "../../src/log.ts";

const TOOL = {
  type: "function",
  function: {
    name: "lookup",
    parameters: { type: "object", properties: { q: { type: "string" } } },
  },
};
const EASY = "hi there, thanks!";
const HARD =
  "Write a Rust function that parses a CSV file with quoted fields, then prove its complexity step by step and compare it with a regex-based approach.";

Deno.test("router — a sticky end-user keeps its model; other users are routed afresh", async () => {
  await using h = await startRouterHarness();
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "sticky",
    pool: [SMALL.id, LARGE.id].join(","),
    threshold: "6",
    "sticky-seconds": "600",
  });
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "loose",
    pool: [SMALL.id, LARGE.id].join(","),
    threshold: "6",
  });
  const ask = async (model: string, content: string, user?: string) => {
    const res = await h.post("/v1/chat/completions", {
      model,
      messages: [{ role: "user", content }],
      ...(user ? { user } : {}),
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    return [res.headers.get("x-sovra-routed-model"), res.headers.get("x-sovra-routing-reason")];
  };
  // Without stickiness the two prompts go to different models.
  assert.equal((await ask("router/loose", EASY))[0], SMALL.id);
  assert.equal((await ask("router/loose", HARD))[0], LARGE.id);
  // alice starts easy: she stays on the small model for her hard prompt too.
  assert.equal((await ask("router/sticky", EASY, "alice"))[0], SMALL.id);
  const [model, reason] = await ask("router/sticky", HARD, "alice");
  assert.equal(model, SMALL.id);
  assert.match(reason!, /^sticky: end-user keeps sim\/small/);
  // bob is routed on his own prompt; a policy without stickiness ignores users.
  assert.equal((await ask("router/sticky", HARD, "bob"))[0], LARGE.id);
  assert.equal((await ask("router/loose", HARD, "alice"))[0], LARGE.id);
});

Deno.test("router — a tool-loop continuation stays on the model that made the calls", async () => {
  await using h = await startRouterHarness();
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "agent",
    pool: [SMALL.id, LARGE.id].join(","),
    threshold: "10",
  });
  const first = await h.client.chat.completions.create({
    model: "router/agent",
    messages: [{ role: "user", content: EASY }],
    tools: [TOOL] as never,
  });
  assert.equal(first.model, LARGE.id);
  const calls = first.choices[0]!.message.tool_calls!;
  assert.ok(calls.length > 0);

  // The policy changes: now everything would go to the small model.
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "agent",
    pool: [SMALL.id, LARGE.id].join(","),
    threshold: "1",
  });
  const continued = await h.post("/v1/chat/completions", {
    model: "router/agent",
    tools: [TOOL],
    messages: [
      { role: "user", content: EASY },
      { role: "assistant", content: null, tool_calls: calls },
      ...calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: "42" })),
    ],
  });
  assert.equal(continued.status, 200);
  assert.equal(continued.headers.get("x-sovra-routed-model"), LARGE.id);
  assert.match(
    continued.headers.get("x-sovra-routing-reason")!,
    /^pinned: tool-loop continuation/,
  );
  // A new conversation follows the new dial.
  const fresh = await h.client.chat.completions.create({
    model: "router/agent",
    messages: [{ role: "user", content: EASY }],
  });
  assert.equal(fresh.model, SMALL.id);
});

Deno.test("router — pins are shared by the instances on one state: a continuation and a sticky end-user keep their model on a second instance", async () => {
  const h = await startRouterHarness();
  // A second gateway on the same KV file and catalog (another instance of the fleet).
  const second = await startGateway(
    configFromEnv({
      SOVRA_PORT: "0",
      SOVRA_KV: h.kvPath,
      SOVRA_CATALOG: h.catalogDir,
      SIM_KEY,
      SOVRA_ROUTER_POLICY_CACHE_MS: "0",
    }),
    { log: silentLogger },
  );
  const post = (base: string, body: unknown) =>
    fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const routed = async (res: Response) => {
    assert.equal(res.status, 200);
    const body = await res.json();
    return {
      model: res.headers.get("x-sovra-routed-model"),
      reason: res.headers.get("x-sovra-routing-reason")!,
      calls: body.choices[0].message.tool_calls,
    };
  };
  try {
    await h.admin(["routing", "create"], {
      org: h.org,
      id: "agent",
      pool: [SMALL.id, LARGE.id].join(","),
      threshold: "10",
      "sticky-seconds": "600",
    });
    // The first instance starts a tool loop on the large model (dial 10) …
    const first = await routed(
      await post(h.url, {
        model: "router/agent",
        tools: [TOOL],
        messages: [{ role: "user", content: EASY }],
      }),
    );
    assert.equal(first.model, LARGE.id);
    assert.ok(first.calls?.length > 0);
    // … and alice starts there on the small model (dial 1).
    await h.admin(["routing", "create"], {
      org: h.org,
      id: "agent",
      pool: [SMALL.id, LARGE.id].join(","),
      threshold: "1",
      "sticky-seconds": "600",
    });
    const alice = await routed(
      await post(h.url, {
        model: "router/agent",
        messages: [{ role: "user", content: EASY }],
        user: "alice",
      }),
    );
    assert.equal(alice.model, SMALL.id);
    await h.gateway.deps.routerPins.idle(); // the first instance's pin writes have committed

    // The dial now says: everything to the small model. The continuation reaches the second
    // instance and stays on the large model that made the calls.
    const continued = await routed(
      await post(second.url, {
        model: "router/agent",
        tools: [TOOL],
        messages: [
          { role: "user", content: EASY },
          { role: "assistant", content: null, tool_calls: first.calls },
          ...first.calls.map((c: { id: string }) => ({
            role: "tool",
            tool_call_id: c.id,
            content: "42",
          })),
        ],
      }),
    );
    assert.equal(continued.model, LARGE.id);
    assert.match(continued.reason, /^pinned: tool-loop continuation/);
    // With dial 10 a hard prompt would go large; alice keeps her small model on the second
    // instance too.
    await h.admin(["routing", "create"], {
      org: h.org,
      id: "agent",
      pool: [SMALL.id, LARGE.id].join(","),
      threshold: "10",
      "sticky-seconds": "600",
    });
    const again = await routed(
      await post(second.url, {
        model: "router/agent",
        messages: [{ role: "user", content: HARD }],
        user: "alice",
      }),
    );
    assert.equal(again.model, SMALL.id);
    assert.match(again.reason, /^sticky: end-user keeps sim\/small/);
    // bob has no pin anywhere: routed on his prompt.
    const bob = await routed(
      await post(second.url, {
        model: "router/agent",
        messages: [{ role: "user", content: HARD }],
        user: "bob",
      }),
    );
    assert.equal(bob.model, LARGE.id);
  } finally {
    await second.close();
    await h.close();
  }
});
