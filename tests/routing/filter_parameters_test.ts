/**
 * Rule 1 (`filterParameters`, src/routing/filter_parameters.ts): a parameter the route does not
 * support is removed from the upstream request and named, never rejected. Supported means listed
 * in the model's `supported_parameters` and not in the provider's `unsupported_parameters`; `n`
 * also needs the dialect's `n` capability.
 */
import assert from "node:assert/strict";
import { filterParameters, isSupported } from "../../src/routing/filter_parameters.ts";
import { CATALOG, chatModel, chatRequest, MIXED } from "./plan_fixtures.ts";

const [OA_1, AWS, OA_2] = CATALOG.routesOf(MIXED);

Deno.test("isSupported — the model lists it and the provider does not exclude it", () => {
  assert.equal(isSupported(OA_1!, "temperature"), true);
  assert.equal(isSupported(OA_2!, "temperature"), false, "excluded by the provider");
  assert.equal(isSupported(OA_1!, "top_p"), false, "not listed by the model");
});

Deno.test("filterParameters — unsupported fields are removed and named; supported ones kept", () => {
  const request = chatRequest({ temperature: 0.2, topP: 0.9, maxTokens: 10 });
  const one = filterParameters(request, OA_1!);
  assert.equal(one.request.temperature, 0.2);
  assert.equal(one.request.topP, undefined);
  assert.equal(one.request.maxTokens, undefined);
  assert.deepEqual(one.dropped.sort(), ["max_tokens", "top_p"]);
  const two = filterParameters(request, OA_2!);
  assert.equal(two.request.temperature, undefined);
  assert.deepEqual(two.dropped.sort(), ["max_tokens", "temperature", "top_p"]);
  // The client's request is not changed: each route gets its own copy.
  assert.equal(request.temperature, 0.2);
  assert.equal(request.topP, 0.9);
});

Deno.test("filterParameters — `user` is dropped silently where unsupported (kept for metadata)", () => {
  const { request, dropped } = filterParameters(chatRequest({ user: "end-user" }), OA_1!);
  assert.equal(request.user, undefined);
  assert.deepEqual(dropped, []);
});

Deno.test("filterParameters — unknown client fields pass where listed, are named where not", () => {
  const model = chatModel("acme/x", [{ provider: "oa-1", upstream_model: "x" }], ["seed"]);
  const route = { ...OA_1!, model };
  const { request, dropped } = filterParameters(
    chatRequest({ extra: { seed: 7, logit_bias: { "1": 2 }, empty: null } }),
    route,
  );
  assert.deepEqual(request.extra, { seed: 7 });
  assert.deepEqual(dropped, ["logit_bias"]);
});

Deno.test("filterParameters — `n` needs the dialect's capability: kept on openai, named on bedrock", () => {
  const withN = chatModel("acme/n", MIXED.routes, ["n"]);
  const [openai, bedrock] = [{ ...OA_1!, model: withN }, { ...AWS!, model: withN }];
  assert.equal(filterParameters(chatRequest({ n: 3 }), openai).request.n, 3);
  const refused = filterParameters(chatRequest({ n: 3 }), bedrock);
  assert.equal(refused.request.n, undefined);
  assert.deepEqual(refused.dropped, ["n"]);
  // n: 1 is the default everywhere: removed without a note.
  assert.deepEqual(filterParameters(chatRequest({ n: 1 }), bedrock).dropped, []);
});

Deno.test("filterParameters — n > 1 is forwarded on openai routes, dropped and named on rebuilding ones", async () => {
  const { filterParameters } = await import("../../src/routing/filter_parameters.ts");
  const model = {
    id: "acme/chat",
    kind: "chat" as const,
    state: "active" as const,
    sovereignty: "strict" as const,
    pricing: {},
    supported_parameters: ["n"],
    routes: [{ provider: "p", upstream_model: "m" }],
  };
  const provider = (dialect: "openai" | "bedrock") => ({
    dialect,
    base_url: "http://127.0.0.1:9",
    zdr: false,
    unsupported_parameters: [],
    ...(dialect === "bedrock"
      ? { aws: { region: "eu-central-1", access_key_id_env: "A", secret_access_key_env: "B" } }
      : {}),
  });
  const route = (dialect: "openai" | "bedrock") => ({
    providerId: "p",
    provider: provider(dialect),
    route: { provider: "p", upstream_model: "m" },
    dialect,
    model,
  });
  const request = { model: "acme/chat", messages: [], stream: false, n: 2, extra: {} };
  const openai = filterParameters(request, route("openai"));
  assert.equal(openai.request.n, 2);
  assert.deepEqual(openai.dropped, []);
  const bedrock = filterParameters(request, route("bedrock"));
  assert.equal(bedrock.request.n, undefined);
  assert.deepEqual(bedrock.dropped, ["n"]);
});
