/**
 * Property: over random client requests (any parameter, client fields passed through, message
 * names, replayed reasoning details, any reasoning effort, streamed or not), on every route of
 * the shipped catalog, the body Sovra builds for the provider holds no field, message field or
 * listed value outside that provider's request schema (`catalog/provider_schemas/*.json`), on
 * every endpoint — and on `openai`-dialect routes whatever the client sent that the body lacks
 * is named in the dropped parameters (or, for an effort, the adjusted ones).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { loadCatalog } from "../../src/catalog/load.ts";
import { DIALECTS } from "../../src/providers/registry.ts";
import { planRoutes } from "../../src/routing/plan_routes.ts";
import { NO_ROUTING_HOOKS, type PlannedRequest } from "../../src/routing/route_plan.ts";
import type { ChatMessage, ChatRequest, ReasoningEffort } from "../../src/canonical/chat.ts";
import type { Catalog } from "../../src/catalog/catalog.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import type { SchemaEndpoint } from "../../src/catalog/provider_schema.ts";
import { convertRequest } from "../../src/providers/openai/convert_request.ts";
import { shapeBody, WIRE_FIELDS } from "../../src/providers/openai/conform_request.ts";
import { toConverseBody } from "../../src/providers/bedrock/convert_request.ts";
import { toMessagesBody } from "../../src/providers/anthropic_messages/convert_request.ts";
import { violationsOf } from "../../scripts/simulator/provider_rules.ts";
import { schemaStem } from "../../scripts/simulated_catalog.ts";
import { SHIPPED_CATALOG } from "../helpers/shipped_catalog.ts";

const catalog = await loadCatalog(SHIPPED_CATALOG, DIALECTS);
const caller = { requestId: "prop", startedAt: 0, org: "o", keyId: "k" };
const EFFORTS: ReasoningEffort[] = ["none", "minimal", "low", "medium", "high", "xhigh"];

function profileOf(route: ResolvedRoute): string {
  return schemaStem(route.provider.request_schema ?? "none");
}

function routesOfKind(kind: string): ResolvedRoute[] {
  return catalog.activeModels().filter((m) => m.kind === kind)
    .flatMap((m) => catalog.routesOf(m));
}

function plannedFor(input: PlannedRequest, route: ResolvedRoute, c: Catalog = catalog) {
  const plan = planRoutes({ ...input, caller, catalog: c, model: route.model }, NO_ROUTING_HOOKS);
  return plan.candidates.find((candidate) => candidate.route === route);
}

function assertInSchema(
  route: ResolvedRoute,
  endpoint: SchemaEndpoint,
  body: Record<string, unknown>,
): void {
  const schema = route.requestSchema?.endpoints[endpoint];
  assert.ok(schema, `${route.providerId} has a ${endpoint} schema`);
  const found = violationsOf(profileOf(route), endpoint, schema, body);
  assert.deepEqual(found, [], `${route.providerId}/${route.route.upstream_model}`);
}

const message = fc.oneof(
  fc.record({
    role: fc.constant("system" as const),
    content: fc.string(),
    name: fc.option(fc.constant("sys"), { nil: undefined }),
  }),
  fc.record({
    role: fc.constant("user" as const),
    content: fc.string({ minLength: 1 }),
    name: fc.option(fc.constant("alice"), { nil: undefined }),
  }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: fc.string(),
    reasoningDetails: fc.option(
      fc.constant([{ type: "reasoning.text" as const, text: "t", format: "unknown" }]),
      { nil: undefined },
    ),
  }),
).map((m) => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (v !== undefined) out[k] = v;
  return out as ChatMessage;
});

const extraField = fc.constantFrom(
  "seed",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "service_tier",
  "metadata",
  "frequency_penalty",
  "presence_penalty",
  "prediction",
  "store",
  "x_unknown",
);

const chatRequest: fc.Arbitrary<ChatRequest> = fc.record({
  messages: fc.array(message, { minLength: 0, maxLength: 4 }),
  stream: fc.boolean(),
  temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  topP: fc.option(fc.double({ min: 0.1, max: 1, noNaN: true }), { nil: undefined }),
  maxTokens: fc.option(fc.integer({ min: 1, max: 4096 }), { nil: undefined }),
  stop: fc.option(fc.constant(["\n\n"]), { nil: undefined }),
  n: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  tools: fc.option(
    fc.constant([{ type: "function" as const, function: { name: "f", parameters: {} } }]),
    { nil: undefined },
  ),
  toolChoice: fc.option(fc.constantFrom("auto" as const, "none" as const), { nil: undefined }),
  parallelToolCalls: fc.option(fc.boolean(), { nil: undefined }),
  responseFormat: fc.option(fc.constant({ type: "json_object" }), { nil: undefined }),
  reasoning: fc.option(
    fc.oneof(
      fc.record({ effort: fc.constantFrom(...EFFORTS) }),
      fc.constant({ enabled: false }),
    ),
    { nil: undefined },
  ),
  user: fc.option(fc.constant("end-user"), { nil: undefined }),
  extra: fc.dictionary(extraField, fc.constantFrom(1, "x", true), { maxKeys: 4 }),
}).map((r) => {
  const request: Record<string, unknown> = { model: "", extra: r.extra, stream: r.stream };
  for (const [k, v] of Object.entries(r)) if (v !== undefined && k !== "extra") request[k] = v;
  // A conversation ends on a user turn.
  request.messages = [...r.messages, { role: "user", content: "go" }];
  return request as unknown as ChatRequest;
});

/** The body each dialect sends for this candidate request. */
function wireBody(route: ResolvedRoute, request: ChatRequest): Record<string, unknown> {
  switch (route.dialect) {
    case "openai":
      return convertRequest(request, route);
    case "bedrock":
      return toConverseBody(request, route) as unknown as Record<string, unknown>;
    case "vertex-anthropic":
      return {
        anthropic_version: "vertex-2023-10-16",
        ...toMessagesBody(request, route),
        ...(request.stream ? { stream: true } : {}),
      };
    default:
      throw new Error(`no chat converter for ${route.dialect}`);
  }
}

/** On `openai` routes: each client field the body lacks is named (dropped or adjusted). */
function assertReported(
  route: ResolvedRoute,
  client: ChatRequest,
  body: Record<string, unknown>,
  named: readonly string[],
): void {
  const schema = route.requestSchema!.endpoints.chat!;
  const sent = (name: string) => (schema.rename[name] ?? name) in body;
  for (const [field, wire] of WIRE_FIELDS) {
    if (client[field] === undefined || field === "user" || sent(wire)) continue;
    if (field === "n" && (client.n ?? 1) <= 1) continue;
    if (field === "reasoning") {
      assert.ok(
        named.some((n) => n.startsWith("reasoning")),
        `reasoning not sent to ${route.providerId} and not named: ${named}`,
      );
      continue;
    }
    const clientName = wire;
    assert.ok(
      named.includes(clientName),
      `${clientName} not sent to ${route.providerId}, not named`,
    );
  }
  for (const [name, value] of Object.entries(client.extra)) {
    if (value === undefined || value === null || sent(name)) continue;
    assert.ok(named.includes(name), `${name} not sent to ${route.providerId}, not named`);
  }
  const wireMessages = (body.messages as Array<Record<string, unknown>>) ?? [];
  client.messages.forEach((m, i) => {
    if ((m.role === "user" || m.role === "system") && m.name !== undefined) {
      if (!("name" in (wireMessages[i] ?? {}))) assert.ok(named.includes("messages[].name"));
    }
    if (m.role === "assistant" && m.reasoningDetails !== undefined) {
      if (!("reasoning_details" in (wireMessages[i] ?? {}))) {
        assert.ok(named.includes("messages[].reasoning_details"));
      }
    }
  });
}

Deno.test("provider schemas — chat, streamed or not: every body on every shipped route stays inside its provider's schema, and what it lacks is named", () => {
  const routes = routesOfKind("chat");
  assert.ok(routes.length > 30, "the shipped catalog's chat routes");
  fc.assert(
    fc.property(chatRequest, (client) => {
      for (const route of routes) {
        const request = { ...client, model: route.model.id };
        // Rule 6 (tools on a model without them) refuses before any route is planned.
        if (request.tools && !route.model.supported_parameters.includes("tools")) continue;
        const candidate = plannedFor({ endpoint: "chat", request }, route);
        assert.ok(candidate, `${route.providerId} planned`);
        if (candidate.refusal) continue;
        const body = wireBody(route, candidate.request as ChatRequest);
        assertInSchema(route, "chat", body);
        if (route.dialect === "openai") {
          assertReported(route, request, body, [
            ...candidate.dropped,
            ...(candidate.adjusted ?? []),
          ]);
        }
      }
    }),
    { numRuns: 120 },
  );
});

Deno.test("provider schemas — embeddings: fields renamed or named, never sent outside the schema", () => {
  const routes = routesOfKind("embedding");
  const body = fc.record({
    input: fc.constant("hello"),
    encoding_format: fc.option(fc.constantFrom("float", "base64"), { nil: undefined }),
    dimensions: fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
    user: fc.option(fc.constant("u"), { nil: undefined }),
    output_dtype: fc.option(fc.constant("float"), { nil: undefined }),
    x_unknown: fc.option(fc.constant(1), { nil: undefined }),
  }).map((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)));
  fc.assert(
    fc.property(body, (client) => {
      for (const route of routes) {
        const input = {
          endpoint: "embeddings" as const,
          request: { model: route.model.id, body: client },
        };
        const candidate = plannedFor(input, route)!;
        const sent = shapeBody(
          {
            ...(candidate.request as typeof input.request).body,
            model: route.route.upstream_model,
          },
          route.requestSchema?.endpoints.embeddings,
        );
        assertInSchema(route, "embeddings", sent);
        for (const name of Object.keys(client)) {
          if (name === "user" || name === "input") continue;
          const schema = route.requestSchema!.endpoints.embeddings!;
          const own = schema.rename[name] ?? name;
          if (!(own in sent)) {
            assert.ok(candidate.dropped.includes(name), `${name} on ${route.providerId}`);
          }
        }
      }
    }),
    { numRuns: 60 },
  );
});

Deno.test("provider schemas — speech and transcription bodies stay inside the schema", () => {
  for (const route of routesOfKind("speech")) {
    if (route.dialect !== "openai") continue;
    const body = shapeBody({
      model: route.route.upstream_model,
      input: "hi",
      voice: route.model.voices![0],
      response_format: route.model.limits?.response_formats?.[0] ?? "mp3",
    }, route.requestSchema?.endpoints.speech);
    assertInSchema(route, "speech", body);
  }
  for (const route of routesOfKind("transcription")) {
    const candidate = plannedFor({
      endpoint: "transcriptions",
      request: {
        audio: new Uint8Array(4),
        fileName: "audio.wav",
        mimeType: "audio/wav",
        fields: { language: "en", prompt: "p", temperature: "0", responseFormat: "json" },
      },
    }, route)!;
    const schema = route.requestSchema!.endpoints.transcription!;
    const fields = candidate.request as { fields: Record<string, string | undefined> };
    const form: Record<string, unknown> = { model: "m", file: "f" };
    for (const [k, v] of Object.entries(fields.fields)) {
      const name = k === "responseFormat" ? "response_format" : k;
      if (v !== undefined && schema.fields.includes(name)) form[name] = v;
    }
    assertInSchema(route, "transcription", form);
  }
});
