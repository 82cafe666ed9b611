/**
 * `planRoutes`, the one routing plan of every endpoint: candidates in catalog order, the
 * hooks' filters failing closed, rule 7 refusals and rule 1 filtering decided per route
 * before any upstream call, speech kept to one route, rule 6 and the guardrail checks first.
 */
import assert from "node:assert/strict";
import { GatewayError } from "../../src/errors.ts";
import { planRoutes } from "../../src/routing/plan_routes.ts";
import { NO_ROUTING_HOOKS, type RoutingHooks } from "../../src/routing/route_plan.ts";
import { CALLER, CATALOG, chatRequest, MIXED, OTHER, SPEECH } from "./plan_fixtures.ts";

const names = (plan: { candidates: Array<{ route: { providerId: string } }> }) =>
  plan.candidates.map((c) => c.route.providerId);

function chatPlan(request = chatRequest(), hooks: RoutingHooks = NO_ROUTING_HOOKS) {
  return planRoutes(
    { endpoint: "chat", request, caller: CALLER, catalog: CATALOG, model: MIXED },
    hooks,
  );
}

Deno.test("planRoutes — the model's routes in catalog order, each with its own catalog model", () => {
  const plan = chatPlan();
  assert.deepEqual(names(plan), ["oa-1", "aws", "oa-2"]);
  for (const c of plan.candidates) assert.equal(c.route.model.id, MIXED.id);
  assert.equal(plan.removed.length, 0);
  assert.match(plan.explanation[0]!, /^candidates: oa-1\/m1, aws\//);
});

Deno.test("planRoutes — rule 1 filters each route's request and names what was dropped", () => {
  const plan = chatPlan(chatRequest({ temperature: 0.2 }));
  const [first, , third] = plan.candidates;
  assert.equal(first!.request.temperature, 0.2);
  assert.deepEqual(first!.dropped, []);
  assert.equal(third!.request.temperature, undefined);
  assert.deepEqual(third!.dropped, ["temperature"]);
});

Deno.test("planRoutes — rule 7 marks a rebuilding route refused, openai routes pass", () => {
  const plan = chatPlan(chatRequest({ toolChoice: "none", tools: [] }));
  const [first, second, third] = plan.candidates;
  assert.equal(first!.refusal, undefined);
  assert.equal(second!.refusal?.code, "tool_choice");
  assert.equal(third!.refusal, undefined);
  assert.ok(plan.explanation.some((line) => line.startsWith("refused aws/")));
});

Deno.test("planRoutes — tool-call arguments that are not a JSON object are refused on rebuilding routes before any call", () => {
  const request = chatRequest({
    messages: [
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "[1]" } }],
      },
      { role: "tool", content: "sunny", toolCallId: "call_1" },
    ],
  });
  const plan = chatPlan(request);
  assert.equal(plan.candidates[0]!.refusal, undefined);
  const refusal = plan.candidates[1]!.refusal;
  assert.ok(refusal instanceof GatewayError);
  assert.equal(refusal.status, 400);
  assert.equal(refusal.code, "invalid_request");
  assert.equal(refusal.param, "messages");
  assert.equal(plan.candidates[2]!.refusal, undefined);
});

Deno.test("planRoutes — rule 6: tools on a model without tool support are refused before planning", () => {
  const model = { ...MIXED, supported_parameters: [] };
  assert.throws(
    () =>
      planRoutes({
        endpoint: "responses",
        request: chatRequest({ tools: [] }),
        caller: CALLER,
        catalog: CATALOG,
        model,
      }, NO_ROUTING_HOOKS),
    (e) => e instanceof GatewayError && e.code === "tools_not_supported",
  );
});

Deno.test("planRoutes — a filter removes candidates with a reason, and fails closed when none is left", () => {
  const forbidOpenAI: RoutingHooks = {
    ...NO_ROUTING_HOOKS,
    filters: [{
      name: "org-policy",
      exclude: (route, input) =>
        input.caller.org === "org_1" && route.dialect === "openai" ? "not allowed" : undefined,
      noneLeft: () => new GatewayError(403, "policy_forbids_model", "Forbidden by policy."),
    }],
  };
  const plan = chatPlan(chatRequest(), forbidOpenAI);
  assert.deepEqual(names(plan), ["aws"]);
  assert.deepEqual(plan.removed.map((r) => [r.route.providerId, r.step]), [
    ["oa-1", "org-policy"],
    ["oa-2", "org-policy"],
  ]);
  assert.throws(
    () =>
      planRoutes({
        endpoint: "embeddings",
        request: { model: "m", body: {} },
        caller: CALLER,
        catalog: CATALOG,
        model: OTHER,
      }, forbidOpenAI),
    (e) => e instanceof GatewayError && e.status === 403 && e.code === "policy_forbids_model",
  );
});

Deno.test("planRoutes — a model source (router pool) supplies the models, in its order", () => {
  const hooks: RoutingHooks = {
    ...NO_ROUTING_HOOKS,
    modelSources: [
      () => undefined,
      (input) => input.model.id === MIXED.id ? [OTHER, MIXED] : undefined,
    ],
  };
  const plan = chatPlan(chatRequest(), hooks);
  assert.deepEqual(names(plan), ["oa-2", "oa-1", "aws", "oa-2"]);
  assert.equal(plan.candidates[0]!.route.model.id, OTHER.id);
});

Deno.test("planRoutes — request checks (guardrail) run before planning and refuse by throwing", () => {
  const seen: string[] = [];
  const hooks: RoutingHooks = {
    ...NO_ROUTING_HOOKS,
    requestChecks: [(input) => {
      seen.push(input.endpoint);
      throw new GatewayError(400, "guardrail_refused", "Refused.");
    }],
  };
  assert.throws(() => chatPlan(chatRequest(), hooks), (e) => e instanceof GatewayError);
  assert.deepEqual(seen, ["chat"]);
});

Deno.test("planRoutes — speech keeps only its first route (it never falls back)", () => {
  const plan = planRoutes({
    endpoint: "speech",
    request: { input: "hi", voice: "alloy", responseFormat: "mp3" },
    caller: CALLER,
    catalog: CATALOG,
    model: SPEECH,
  }, NO_ROUTING_HOOKS);
  assert.deepEqual(names(plan), ["oa-1"]);
  assert.deepEqual(plan.removed.map((r) => r.reason), ["speech never falls back"]);
});
