/**
 * Reasoning effort per route (`fitReasoning`, src/routing/fit_reasoning.ts): the model's
 * `supported_efforts` (or the route's) decide; an effort the route lacks becomes the nearest
 * level it has (ties upward) or, with none, is dropped and named; `none` on a route with the
 * provider's own off-switch is sent as that switch in the last user message.
 */
import assert from "node:assert/strict";
import { fitReasoning, nearestLevel } from "../../src/routing/fit_reasoning.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import type { Model, Route } from "../../src/catalog/schema.ts";
import type { ReasoningEffort } from "../../src/canonical/chat.ts";
import { chatRequest, PROVIDERS } from "./plan_fixtures.ts";

function routeWith(
  efforts: ReasoningEffort[],
  mandatory: boolean,
  route: Partial<Route> = {},
): ResolvedRoute {
  const model = {
    id: "acme/r",
    kind: "chat",
    state: "active",
    sovereignty: "strict",
    pricing: {},
    supported_parameters: ["reasoning"],
    reasoning: { supported_efforts: efforts, supports_max_tokens: false, mandatory },
    routes: [{ provider: "oa-1", upstream_model: "r", ...route }],
  } as Model;
  return {
    providerId: "oa-1",
    provider: PROVIDERS["oa-1"]!,
    route: model.routes[0]!,
    dialect: "openai",
    model,
  };
}

Deno.test("nearestLevel — closest supported level, ties upward, none is not a level", () => {
  assert.equal(nearestLevel("medium", ["none", "high"]), "high");
  assert.equal(nearestLevel("low", ["none", "high"]), "high");
  assert.equal(nearestLevel("medium", ["low", "high"]), "high");
  assert.equal(nearestLevel("minimal", ["low", "medium", "high"]), "low");
  assert.equal(nearestLevel("xhigh", ["low", "medium", "high"]), "high");
  assert.equal(nearestLevel("high", ["none"]), undefined);
  assert.equal(nearestLevel("high", []), undefined);
});

Deno.test("fitReasoning — a supported effort passes unchanged", () => {
  const request = chatRequest({ reasoning: { effort: "high" } });
  const fitted = fitReasoning(request, routeWith(["none", "high"], false));
  assert.equal(fitted.request, request);
  assert.deepEqual([fitted.dropped, fitted.adjusted], [[], []]);
});

Deno.test("fitReasoning — an effort the route lacks is mapped to the nearest and named as adjusted", () => {
  const fitted = fitReasoning(
    chatRequest({ reasoning: { effort: "medium", exclude: true } }),
    routeWith(["none", "high"], false),
  );
  assert.deepEqual(fitted.request.reasoning, { effort: "high", exclude: true });
  assert.deepEqual(fitted.adjusted, ["reasoning.effort=medium->high"]);
  assert.deepEqual(fitted.dropped, []);
});

Deno.test("fitReasoning — none on a model that always reasons (gpt-oss on Scaleway) is dropped and named", () => {
  const fitted = fitReasoning(
    chatRequest({ reasoning: { effort: "none" } }),
    routeWith(["low", "medium", "high"], true),
  );
  assert.equal(fitted.request.reasoning, undefined);
  assert.deepEqual(fitted.dropped, ["reasoning.effort"]);
  // `enabled: false` means the same.
  const off = fitReasoning(
    chatRequest({ reasoning: { enabled: false } }),
    routeWith(["high"], true),
  );
  assert.deepEqual(off.dropped, ["reasoning.effort"]);
});

Deno.test("fitReasoning — a model without effort control drops any effort", () => {
  const fitted = fitReasoning(chatRequest({ reasoning: { effort: "low" } }), routeWith([], true));
  assert.deepEqual(fitted.dropped, ["reasoning.effort"]);
  assert.equal(fitted.request.reasoning, undefined);
});

Deno.test("fitReasoning — none with the provider's off-switch: the switch ends the last user message", () => {
  const route = routeWith(["none", "high"], false, {
    reasoning: { supported_efforts: ["none", "high"], off_switch: "/no_think" },
  });
  const request = chatRequest({
    reasoning: { effort: "none" },
    messages: [
      { role: "user", content: "first" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "second" },
    ],
  });
  const fitted = fitReasoning(request, route);
  assert.equal(fitted.request.reasoning, undefined);
  assert.deepEqual(fitted.request.messages.map((m) => m.content), [
    "first",
    "ok",
    "second\n\n/no_think",
  ]);
  assert.deepEqual(fitted.adjusted, ["reasoning.effort=none->/no_think"]);
  assert.equal(request.messages[2]!.content, "second", "the client's request is not changed");
});

Deno.test("fitReasoning — the route's own efforts win over the model's", () => {
  const route = routeWith(["low", "medium", "high"], false, {
    reasoning: { supported_efforts: ["high"] },
  });
  const fitted = fitReasoning(chatRequest({ reasoning: { effort: "low" } }), route);
  assert.equal(fitted.request.reasoning?.effort, "high");
});
