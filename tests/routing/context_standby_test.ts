/**
 * The plan's context step: a chat standby whose provider accepts less context than the model
 * (`routes[].context_length`) is left out when the request would not fit it (characters / 4 +
 * `max_tokens`), so a long prompt the primary takes does not end on that standby's 400; the
 * primary always stays.
 */
import assert from "node:assert/strict";
import { Catalog } from "../../src/catalog/catalog.ts";
import { planRoutes } from "../../src/routing/plan_routes.ts";
import { NO_ROUTING_HOOKS } from "../../src/routing/route_plan.ts";
import { CALLER, chatModel, chatRequest, PROVIDERS } from "./plan_fixtures.ts";

const model = {
  ...chatModel("acme/long", [
    { provider: "oa-1", upstream_model: "primary", context_length: 40_000 },
    { provider: "oa-2", upstream_model: "short", context_length: 1_000 },
  ]),
  context_length: 40_000,
};
const catalog = new Catalog(PROVIDERS, [model]);

function plan(chars: number, maxTokens?: number) {
  const request = chatRequest({
    model: model.id,
    messages: [{ role: "user", content: "x".repeat(chars) }],
    ...(maxTokens === undefined ? {} : { maxTokens }),
  });
  return planRoutes(
    { endpoint: "chat", request, caller: CALLER, catalog, model },
    NO_ROUTING_HOOKS,
  );
}

Deno.test("planRoutes context — a standby too short for the request is removed with its reason", () => {
  const long = plan(20_000);
  assert.deepEqual(long.candidates.map((c) => c.route.route.upstream_model), ["primary"]);
  assert.deepEqual(long.removed.map((r) => [r.step, r.reason]), [
    ["context", "context: needs about 5000 tokens, the route accepts 1000"],
  ]);
  // max_tokens counts too.
  assert.equal(plan(400, 2_000).candidates.length, 1);
  assert.equal(plan(400).candidates.length, 2);
});

Deno.test("planRoutes context — the primary is kept even when the request exceeds its context", () => {
  const huge = plan(400_000);
  assert.deepEqual(huge.candidates.map((c) => c.route.route.upstream_model), ["primary"]);
});
