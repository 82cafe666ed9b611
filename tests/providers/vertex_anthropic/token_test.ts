import assert from "node:assert/strict";
import type { ChatRequest } from "../../../src/canonical/chat.ts";
import type { ResolvedRoute } from "../../../src/catalog/resolved_route.ts";
import { createVertexAnthropicAdapter } from "../../../src/providers/vertex_anthropic/adapter.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";
import {
  startVertexSimulator,
  type VertexSimulator,
} from "../../../scripts/simulator/vertex/mod.ts";

function routeFor(
  sim: VertexSimulator,
  upstream = "claude-3-5-haiku@20241022",
  tokenUrl = sim.tokenUrl,
): ResolvedRoute {
  return {
    providerId: "v",
    dialect: "vertex-anthropic",
    provider: {
      dialect: "vertex-anthropic",
      base_url: sim.url,
      vertex: {
        project: "p",
        region: "europe-west4",
        service_account_env: "SA",
        token_url: tokenUrl,
      },
      zdr: false,
      unsupported_parameters: [],
    },
    route: { provider: "v", upstream_model: upstream },
    model: {
      id: "v/c",
      kind: "chat",
      state: "active",
      sovereignty: "pragmatic",
      pricing: {},
      supported_parameters: [],
      routes: [{ provider: "v", upstream_model: upstream }],
    },
  };
}

const request: ChatRequest = {
  model: "v/c",
  messages: [{ role: "user", content: "Hi" }],
  stream: false,
  extra: {},
};
const call = (route: ResolvedRoute) => ({ route, signal: new AbortController().signal });

Deno.test("createVertexAnthropicAdapter — token cached, refreshed once on 401, refreshed near expiry", async () => {
  await using sim = await startVertexSimulator();
  let now = Date.now();
  const adapter = createVertexAnthropicAdapter({
    env: (n) => (n === "SA" ? sim.serviceAccountJson : undefined),
    now: () => now,
  });
  await adapter.chat(request, call(routeFor(sim)));
  await adapter.chat(request, call(routeFor(sim)));
  assert.equal(sim.tokensIssued, 1);
  sim.revokeTokens();
  const result = await adapter.chat(request, call(routeFor(sim)));
  assert.ok(result.content);
  assert.equal(sim.tokensIssued, 2);
  now += 3599_000 - 30_000; // inside the refresh margin before expiry
  await adapter.chat(request, call(routeFor(sim)));
  assert.equal(sim.tokensIssued, 3);
});

Deno.test("createVertexAnthropicAdapter — a persistent 401 fails as auth after one refresh", async () => {
  await using sim = await startVertexSimulator();
  const adapter = createVertexAnthropicAdapter({ env: () => sim.serviceAccountJson });
  await assert.rejects(adapter.chat(request, call(routeFor(sim, "claude-x+fail-401"))), (e) => {
    assert.ok(e instanceof UpstreamFailure);
    assert.equal(e.kind, "auth");
    return true;
  });
  assert.equal(sim.requests.length, 2);
  assert.equal(sim.tokensIssued, 2);
});

Deno.test("createVertexAnthropicAdapter — a foreign key or wrong audience is refused by the token endpoint", async () => {
  const sim = await startVertexSimulator();
  const other = await startVertexSimulator();
  try {
    const foreign = createVertexAnthropicAdapter({ env: () => other.serviceAccountJson });
    await assert.rejects(
      foreign.chat(request, call(routeFor(sim))),
      (e) => e instanceof UpstreamFailure && e.kind === "auth",
    );
    const wrongAudience = createVertexAnthropicAdapter({ env: () => sim.serviceAccountJson });
    await assert.rejects(
      wrongAudience.chat(request, call(routeFor(sim, undefined, `${sim.url}/token?x=1`))),
      (e) => e instanceof UpstreamFailure && e.kind === "auth",
    );
    assert.equal(sim.tokensIssued, 0);
    const missing = createVertexAnthropicAdapter({ env: () => undefined });
    await assert.rejects(
      missing.chat(request, call(routeFor(sim))),
      (e) => e instanceof UpstreamFailure && e.kind === "auth",
    );
    const broken = createVertexAnthropicAdapter({ env: () => '{"client_email":"a"}' });
    await assert.rejects(broken.chat(request, call(routeFor(sim))), (e) => {
      assert.ok(e instanceof UpstreamFailure && e.kind === "auth");
      assert.equal(e.message.includes("client_email"), false);
      return true;
    });
  } finally {
    await sim.close();
    await other.close();
  }
});
