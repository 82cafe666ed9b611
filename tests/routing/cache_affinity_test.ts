/**
 * Cache affinity: a session that asks for prompt caching stays on the route whose provider
 * holds its cache while that cache lives (its TTL, refreshed by each use), so a standby that
 * served it (the primary failed) keeps serving it instead of writing the prefix again at the
 * primary; the router keeps such a session on its model and prices its cached prefix there at
 * the cached price (`requestPrice`).
 */
import assert from "node:assert/strict";
import { planRoutes } from "../../src/routing/plan_routes.ts";
import { NO_ROUTING_HOOKS, type RoutingHooks } from "../../src/routing/route_plan.ts";
import { CacheAffinity, cacheSession, cacheUseOf } from "../../src/routing/cache_affinity.ts";
import { requestNeeds, requestPrice } from "../../src/smart_router/decide.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import type { Model } from "../../src/catalog/schema.ts";
import { CALLER, CATALOG, chatRequest, MIXED } from "./plan_fixtures.ts";

const cached = (extra: Partial<ChatRequest> = {}): ChatRequest =>
  chatRequest({
    messages: [{
      role: "system",
      content: "Long rules.",
      parts: [{ text: "Long rules.", cache: { ttl: "5m", at: "messages[0]" } }],
    }, { role: "user", content: "hi" }],
    ...extra,
  });

function plan(request: ChatRequest, hooks: RoutingHooks) {
  return planRoutes(
    { endpoint: "chat", request, caller: CALLER, catalog: CATALOG, model: MIXED },
    hooks,
  ).candidates.map((c) => c.route.providerId);
}

Deno.test("cache affinity — the route that served a caching session goes first among its model's routes, for the cache's TTL", () => {
  let now = 1_000;
  const affinity = new CacheAffinity(() => now);
  const hooks = { ...NO_ROUTING_HOOKS, cacheAffinity: affinity };
  const request = cached();
  assert.deepEqual(plan(request, hooks), ["oa-1", "aws", "oa-2"]);
  // The standby served it (the primary failed): its cache is there now.
  affinity.served(CALLER.org, cacheUseOf(request, CALLER.keyId)!, {
    model: MIXED.id,
    provider: "oa-2",
  });
  assert.deepEqual(plan(request, hooks), ["oa-2", "oa-1", "aws"]);
  // Another session, another organization, or a request that asks no caching: no affinity.
  assert.deepEqual(plan(cached({ user: "someone-else" }), hooks), ["oa-1", "aws", "oa-2"]);
  assert.deepEqual(plan(chatRequest(), hooks), ["oa-1", "aws", "oa-2"]);
  assert.equal(affinity.holder("org_other", cacheSession(request, CALLER.keyId)!), undefined);
  // Five minutes later the provider's cache is gone, and so is the preference.
  now += 300_000;
  assert.deepEqual(plan(request, hooks), ["oa-1", "aws", "oa-2"]);
});

Deno.test("cache affinity — the session is the prompt_cache_key, else the end user, else the key; the TTL the longest asked", () => {
  const keyed = chatRequest({ extra: { prompt_cache_key: "conv-7" }, user: "u1" });
  assert.equal(cacheSession(keyed, "key_1"), "k\u001fconv-7");
  assert.equal(cacheSession(cached({ user: "u1" }), "key_1"), "u\u001fu1");
  assert.equal(cacheSession(cached(), "key_1"), "a\u001fkey_1");
  assert.equal(cacheSession(chatRequest({ user: "u1" }), "key_1"), undefined);
  const hourly = cached();
  hourly.messages[0]!.parts![0]!.cache!.ttl = "1h";
  assert.equal(cacheUseOf(hourly, "key_1")?.ttlMs, 3_600_000);
  assert.equal(cacheUseOf(cached(), "key_1")?.ttlMs, 300_000);
});

Deno.test("requestPrice — the cacheable prefix at the write price cold and at the cached price where warm", () => {
  const claude = {
    id: "anthropic/claude",
    kind: "chat",
    state: "active",
    sovereignty: "pragmatic",
    pricing: {
      prompt_micro_eur_per_million: 3_000_000,
      completion_micro_eur_per_million: 15_000_000,
      cached_prompt_micro_eur_per_million: 300_000,
      cache_write_micro_eur_per_million: 3_750_000,
    },
    supported_parameters: ["cache_control"],
    routes: [{ provider: "p", upstream_model: "m" }],
  } as Model;
  const rules = "x".repeat(40_000);
  const request = chatRequest({
    messages: [
      { role: "system", content: rules, parts: [{ text: rules, cache: { ttl: "5m", at: "m" } }] },
      { role: "user", content: "y".repeat(400) },
    ],
    maxTokens: 100,
  });
  const needs = requestNeeds(request);
  assert.equal(needs.cacheablePromptTokens, 10_000);
  const cold = requestPrice(claude, needs);
  const warm = requestPrice(claude, { ...needs, warmModel: claude.id });
  // 10,000 at 3.75 + 100 at 3 + 100 × 15, per million; warm: the 10,000 at 0.30.
  assert.equal(cold, (10_000 * 3_750_000 + 100 * 3_000_000 + 100 * 15_000_000) / 1e6);
  assert.equal(warm, (10_000 * 300_000 + 100 * 3_000_000 + 100 * 15_000_000) / 1e6);
  // A model that caches nothing pays the prompt price for the whole prompt.
  const plain = { ...claude, id: "x/plain", supported_parameters: [] } as Model;
  assert.equal(
    requestPrice(plain, { ...needs, warmModel: plain.id }),
    (10_100 * 3_000_000 + 100 * 15_000_000) / 1e6,
  );
});
