/**
 * `tryRoutes` executes a plan: candidates in order, a retryable failure moves on, a refused
 * first candidate is the answer and a refused later one is skipped (rule 4, rule 7).
 */
import assert from "node:assert/strict";
import { GatewayError } from "../../src/errors.ts";
import { UpstreamFailure } from "../../src/providers/upstream_failure.ts";
import { planRoutes } from "../../src/routing/plan_routes.ts";
import { NO_ROUTING_HOOKS } from "../../src/routing/route_plan.ts";
import { tryRoutes } from "../../src/routing/try_routes.ts";
import { CALLER, CATALOG, chatRequest, MIXED } from "./plan_fixtures.ts";

function plan(extra: Parameters<typeof chatRequest>[0] = {}) {
  return planRoutes(
    {
      endpoint: "chat",
      request: chatRequest(extra),
      caller: CALLER,
      catalog: CATALOG,
      model: MIXED,
    },
    NO_ROUTING_HOOKS,
  );
}
const signal = new AbortController().signal;

Deno.test("tryRoutes — a retryable failure falls back; the served route and its dropped params come back", async () => {
  const tried: string[] = [];
  const failures: string[] = [];
  const success = await tryRoutes(plan({ temperature: 1 }).candidates, (candidate) => {
    tried.push(candidate.route.providerId);
    if (candidate.route.providerId !== "oa-2") {
      return Promise.reject(new UpstreamFailure("unavailable", "down", { status: 503 }));
    }
    return Promise.resolve("ok");
  }, { signal, onFailure: (route, attempts) => failures.push(`${route.providerId}:${attempts}`) });
  assert.deepEqual(tried, ["oa-1", "aws", "oa-2"]);
  assert.deepEqual(failures, ["oa-1:1", "aws:2"]);
  assert.equal(success.value, "ok");
  assert.equal(success.route.providerId, "oa-2");
  assert.equal(success.fallbacks, 2);
  assert.deepEqual(success.dropped, ["temperature"]);
});

Deno.test("tryRoutes — a refused standby is skipped without a call; the last failure answers", async () => {
  const tried: string[] = [];
  await assert.rejects(
    tryRoutes(plan({ toolChoice: "none", tools: [] }).candidates, (candidate) => {
      tried.push(candidate.route.providerId);
      return Promise.reject(new UpstreamFailure("unavailable", "down", { status: 500 }));
    }, { signal }),
    (e) => e instanceof GatewayError && e.status === 502 && e.fromUpstream,
  );
  assert.deepEqual(tried, ["oa-1", "oa-2"]);
});

Deno.test("tryRoutes — a refused first candidate is the answer, before any call", async () => {
  const [, bedrock] = plan({ toolChoice: "none", tools: [] }).candidates;
  let calls = 0;
  await assert.rejects(
    tryRoutes([bedrock!], () => Promise.resolve(calls++), { signal }),
    (e) => e instanceof GatewayError && e.code === "tool_choice" && !e.fromUpstream,
  );
  assert.equal(calls, 0);
});

Deno.test("tryRoutes — a non-retryable failure ends the request on its route", async () => {
  const tried: string[] = [];
  await assert.rejects(
    tryRoutes(plan().candidates, (candidate) => {
      tried.push(candidate.route.providerId);
      return Promise.reject(new UpstreamFailure("invalid_request", "Bad input."));
    }, { signal }),
    (e) => e instanceof GatewayError && e.status === 400 && e.fromUpstream,
  );
  assert.deepEqual(tried, ["oa-1"]);
});
