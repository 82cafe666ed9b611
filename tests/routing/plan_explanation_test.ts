/**
 * The routing plan's whole output pinned line by line (candidates, removals with their step and
 * reason, refusals, dropped parameters, the explanation, the router's decision), and rule 1's
 * per-route knowledge: what a route supports is worked out once per route object, so it follows
 * a reloaded catalog, and holds rule 1 on random routes and requests.
 */
import assert from "node:assert/strict";
import { Catalog } from "../../src/catalog/catalog.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { GatewayError } from "../../src/errors.ts";
import { planRoutes } from "../../src/routing/plan_routes.ts";
import { filterParameters, isSupported } from "../../src/routing/filter_parameters.ts";
import { dialectOf } from "../../src/providers/registry.ts";
import {
  type CandidateFilter,
  NO_ROUTING_HOOKS,
  type RoutePlan,
  type RoutingHooks,
} from "../../src/routing/route_plan.ts";
import {
  CALLER,
  CATALOG,
  chatModel,
  chatRequest,
  MIXED,
  OTHER,
  PROVIDERS,
  SPEECH,
} from "./plan_fixtures.ts";

const AWS_NAME = "aws/eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
const MIXED_LINE = `candidates: oa-1/m1, ${AWS_NAME}, oa-2/m2`;

function forbid(providers: string[]): CandidateFilter {
  return {
    name: "org-policy",
    exclude: (route) => providers.includes(route.providerId) ? `no ${route.providerId}` : undefined,
    noneLeft: (_input, context) =>
      new GatewayError(
        403,
        "policy_forbids_model",
        `${context.requested}: ${context.routes.map((r) => r.providerId).join(",")}`,
      ),
  };
}

function shown(plan: RoutePlan<unknown>) {
  return {
    names: plan.candidates.map((c) => c.route.providerId),
    dropped: plan.candidates.map((c) => c.dropped),
    refused: plan.candidates.map((c) => c.refusal?.code ?? null),
    removed: plan.removed.map((r) => [r.route.providerId, r.step, r.reason]),
    explanation: plan.explanation,
    routing: plan.routing?.policy,
    keys: Object.keys(plan),
  };
}

const chat = (request: ChatRequest, hooks: RoutingHooks = NO_ROUTING_HOOKS, model = MIXED) =>
  planRoutes({ endpoint: "chat", request, caller: CALLER, catalog: CATALOG, model }, hooks);

Deno.test("plan — every line of a plan without hooks, twice (the second from what is kept)", () => {
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(shown(chat(chatRequest())), {
      names: ["oa-1", "aws", "oa-2"],
      dropped: [[], [], []],
      refused: [null, null, null],
      removed: [],
      explanation: [MIXED_LINE],
      routing: undefined,
      keys: ["candidates", "removed", "explanation"],
    });
  }
  const request = chatRequest({
    temperature: 0.2,
    topP: 0.5,
    n: 3,
    toolChoice: "none",
    tools: [],
    extra: { seed: 1, logit_bias: { a: 1 } },
  });
  const common = ["top_p", "tool_choice", "n", "seed", "logit_bias"];
  assert.deepEqual(shown(chat(request)), {
    names: ["oa-1", "aws", "oa-2"],
    dropped: [common, common, ["temperature", ...common]],
    refused: [null, "tool_choice", null],
    removed: [],
    explanation: [
      MIXED_LINE,
      `dropped on oa-1/m1: ${common.join(", ")}`,
      `refused ${AWS_NAME}: tool_choice`,
      `dropped on ${AWS_NAME}: ${common.join(", ")}`,
      `dropped on oa-2/m2: temperature, ${common.join(", ")}`,
    ],
    routing: undefined,
    keys: ["candidates", "removed", "explanation"],
  });
});

Deno.test("plan — filters remove in order with their reasons; the last one standing fails closed naming what it removed", () => {
  assert.deepEqual(
    shown(chat(chatRequest({ temperature: 0.2 }), {
      ...NO_ROUTING_HOOKS,
      filters: [forbid(["aws"]), forbid(["oa-1"])],
    })),
    {
      names: ["oa-2"],
      dropped: [["temperature"]],
      refused: [null],
      removed: [["aws", "org-policy", "no aws"], ["oa-1", "org-policy", "no oa-1"]],
      explanation: [
        MIXED_LINE,
        `org-policy removed ${AWS_NAME}: no aws`,
        "org-policy removed oa-1/m1: no oa-1",
        "dropped on oa-2/m2: temperature",
      ],
      routing: undefined,
      keys: ["candidates", "removed", "explanation"],
    },
  );
  assert.throws(
    () =>
      chat(chatRequest(), {
        ...NO_ROUTING_HOOKS,
        filters: [forbid(["oa-1", "aws"]), forbid(["oa-2"])],
      }),
    (e) => e instanceof GatewayError && e.message === "acme/mixed: oa-2",
  );
  // A filter that removes nothing keeps the catalog's routes; the catalog is not changed.
  chat(chatRequest(), { ...NO_ROUTING_HOOKS, filters: [forbid([])] });
  assert.deepEqual(CATALOG.routesOf(MIXED).map((r) => r.providerId), ["oa-1", "aws", "oa-2"]);
});

Deno.test("plan — a router source: its decision first, its pool's routes, the router named when nothing is left", () => {
  const source = (models = [OTHER, MIXED]) => () => ({
    models,
    routing: { policy: "p1", reason: "because" },
  });
  assert.deepEqual(
    shown(chat(chatRequest(), {
      ...NO_ROUTING_HOOKS,
      modelSources: [source()],
      filters: [forbid(["oa-2"])],
    })),
    {
      names: ["oa-1", "aws"],
      dropped: [[], []],
      refused: [null, null],
      removed: [["oa-2", "org-policy", "no oa-2"], ["oa-2", "org-policy", "no oa-2"]],
      explanation: [
        "router p1: because",
        `candidates: oa-2/o1, oa-1/m1, ${AWS_NAME}, oa-2/m2`,
        "org-policy removed oa-2/o1: no oa-2",
        "org-policy removed oa-2/m2: no oa-2",
      ],
      routing: "p1",
      keys: ["candidates", "removed", "explanation", "routing"],
    },
  );
  assert.throws(
    () =>
      chat(chatRequest(), {
        ...NO_ROUTING_HOOKS,
        modelSources: [source([OTHER])],
        filters: [forbid(["oa-2"])],
      }),
    (e) => e instanceof GatewayError && e.message === "router/p1: oa-2",
  );
});

Deno.test("plan — speech keeps one route after the filters; a model without routes is 'none'", () => {
  const speech = (hooks: RoutingHooks) =>
    planRoutes({
      endpoint: "speech",
      request: { input: "hi", voice: "alloy", responseFormat: "mp3" },
      caller: CALLER,
      catalog: CATALOG,
      model: SPEECH,
    }, hooks);
  assert.deepEqual(shown(speech(NO_ROUTING_HOOKS)).explanation, [
    "candidates: oa-1/t1, oa-2/t2",
    "single-route: speech never falls back",
  ]);
  const filtered = shown(speech({ ...NO_ROUTING_HOOKS, filters: [forbid(["oa-1"])] }));
  assert.deepEqual(filtered.names, ["oa-2"]);
  assert.deepEqual(filtered.explanation, [
    "candidates: oa-1/t1, oa-2/t2",
    "org-policy removed oa-1/t1: no oa-1",
  ]);
  const empty = planRoutes({
    endpoint: "embeddings",
    request: { model: "m", body: {} },
    caller: CALLER,
    catalog: CATALOG,
    model: { ...OTHER, id: "acme/none", routes: [] },
  }, { ...NO_ROUTING_HOOKS, filters: [forbid(["oa-2"])] });
  assert.deepEqual(empty.explanation, ["candidates: none"]);
});

Deno.test("plan — a reloaded catalog's routes are planned from the new catalog (parameters and names)", () => {
  const before = new Catalog(PROVIDERS, [
    chatModel("acme/r", [{ provider: "oa-1", upstream_model: "v1" }], ["temperature"]),
  ]);
  const after = new Catalog(PROVIDERS, [
    chatModel("acme/r", [{ provider: "oa-1", upstream_model: "v2" }], ["top_p"]),
  ]);
  const plan = (catalog: Catalog) =>
    planRoutes({
      endpoint: "chat",
      request: chatRequest({ model: "acme/r", temperature: 0.2, topP: 0.5 }),
      caller: CALLER,
      catalog,
      model: catalog.requireModel("acme/r", "chat"),
    }, NO_ROUTING_HOOKS);
  for (
    const [catalog, line, dropped] of [
      [before, "candidates: oa-1/v1", ["top_p"]],
      [after, "candidates: oa-1/v2", ["temperature"]],
      [before, "candidates: oa-1/v1", ["top_p"]],
    ] as const
  ) {
    const p = plan(catalog);
    assert.equal(p.explanation[0], line);
    assert.deepEqual(p.candidates[0]!.dropped, dropped);
  }
});

/** The request's wire parameters by name (the canonical fields and the extra ones). */
const WIRE_FIELDS = [
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["maxTokens", "max_tokens"],
  ["stop", "stop"],
  ["toolChoice", "tool_choice"],
  ["parallelToolCalls", "parallel_tool_calls"],
  ["responseFormat", "response_format"],
  ["reasoning", "reasoning"],
  ["user", "user"],
  ["n", "n"],
] as const;

/**
 * Rule 1 on one route: what the route supports is sent unchanged, what it does not is removed;
 * each removed parameter that said something (not null, `n` above 1, never the end-user id,
 * which stays for the metadata) is named in `dropped`, once; nothing else of the request moves.
 */
function assertRuleOne(
  request: ChatRequest,
  route: ResolvedRoute,
  got: { request: ChatRequest; dropped: string[] },
) {
  const sent = (name: string) =>
    name === "n"
      ? dialectOf(route.dialect)?.capabilities.n === true && isSupported(route, "n")
      : isSupported(route, name);
  const named: string[] = [];
  for (const [field, name] of WIRE_FIELDS) {
    if (request[field] === undefined) continue;
    if (sent(name)) assert.deepEqual(got.request[field], request[field], `${name} kept`);
    else {
      assert.equal(got.request[field], undefined, `${name} removed`);
      if (name !== "user" && (name !== "n" || request.n! > 1)) named.push(name);
    }
  }
  for (const name of Object.keys(request.extra)) {
    const value = request.extra[name];
    if (sent(name)) assert.deepEqual(got.request.extra[name], value, `${name} kept`);
    else {
      assert.ok(!Object.hasOwn(got.request.extra, name), `${name} removed`);
      if (value !== undefined && value !== null) named.push(name);
    }
  }
  assert.deepEqual(
    Object.keys(got.request.extra).sort(),
    Object.keys(request.extra).filter(sent).sort(),
  );
  assert.deepEqual([...got.dropped].sort(), named.sort());
  assert.equal(new Set(got.dropped).size, got.dropped.length, "each name once");
  assert.equal(got.request.messages, request.messages);
  assert.equal(got.request.model, request.model);
}

Deno.test("filterParameters — rule 1 on random routes and requests: supported sent unchanged, unsupported removed and named", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(items: readonly T[]) => items.filter(() => random() < 0.4);
  const params = [
    "temperature",
    "top_p",
    "max_tokens",
    "stop",
    "tool_choice",
    "parallel_tool_calls",
    "response_format",
    "reasoning",
    "user",
    "n",
    "seed",
    "logit_bias",
  ];
  let compared = 0;
  for (let i = 0; i < 300; i++) {
    const providers = Object.fromEntries(
      Object.entries(PROVIDERS).map((
        [id, p],
      ) => [id, { ...p, unsupported_parameters: pick(params) }]),
    );
    const model = chatModel(
      "acme/random",
      [
        { provider: "oa-1", upstream_model: "a" },
        { provider: "aws", upstream_model: "b" },
        { provider: "oa-2", upstream_model: "c" },
      ],
      pick(params),
    );
    const catalog = new Catalog(providers, [model]);
    const fields: Partial<ChatRequest> = {};
    if (random() < 0.5) fields.temperature = 0.3;
    if (random() < 0.5) fields.topP = 0.9;
    if (random() < 0.5) fields.maxTokens = 12;
    if (random() < 0.3) fields.stop = ["x"];
    if (random() < 0.3) fields.toolChoice = "auto";
    if (random() < 0.3) fields.parallelToolCalls = false;
    if (random() < 0.3) fields.responseFormat = { type: "json_object" };
    if (random() < 0.3) fields.user = "u";
    if (random() < 0.5) fields.n = random() < 0.5 ? 1 : 2;
    const extra: Record<string, unknown> = {};
    if (random() < 0.5) extra.seed = 3;
    if (random() < 0.3) extra.logit_bias = null;
    if (random() < 0.3) extra.unknown_field = "v";
    // As a decoder copies a client's `__proto__` field: it becomes the prototype, not a key.
    if (random() < 0.2) extra["__proto__"] = { inherited: 1 };
    const request = chatRequest({ ...fields, extra });
    for (const route of catalog.routesOf(model)) {
      for (let twice = 0; twice < 2; twice++) {
        assertRuleOne(request, route, filterParameters(request, route));
        compared++;
      }
    }
  }
  assert.equal(compared, 1800);
});
