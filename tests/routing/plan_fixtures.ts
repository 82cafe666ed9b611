/** A small in-memory catalog for the routing plan's unit tests (no I/O). */
import { Catalog } from "../../src/catalog/catalog.ts";
import type { Model, Provider } from "../../src/catalog/schema.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import type { Caller } from "../../src/routing/route_plan.ts";

const AWS = { region: "eu-central-1", access_key_id_env: "A", secret_access_key_env: "B" };

export const PROVIDERS: Record<string, Provider> = {
  "oa-1": {
    dialect: "openai",
    base_url: "http://127.0.0.1:9",
    zdr: false,
    unsupported_parameters: [],
  },
  "oa-2": {
    dialect: "openai",
    base_url: "http://127.0.0.1:9",
    zdr: false,
    unsupported_parameters: ["temperature"],
  },
  "aws": {
    dialect: "bedrock",
    base_url: "http://127.0.0.1:9",
    zdr: false,
    unsupported_parameters: [],
    aws: AWS,
  },
};

export function chatModel(id: string, routes: Model["routes"], params = ["temperature", "tools"]) {
  return {
    id,
    kind: "chat",
    state: "active",
    sovereignty: "strict",
    pricing: { prompt_micro_eur_per_million: 1, completion_micro_eur_per_million: 2 },
    supported_parameters: params,
    routes,
  } as Model;
}

export const MIXED = chatModel("acme/mixed", [
  { provider: "oa-1", upstream_model: "m1" },
  { provider: "aws", upstream_model: "eu.anthropic.claude-sonnet-4-5-20250929-v1:0" },
  { provider: "oa-2", upstream_model: "m2" },
]);
export const OTHER = chatModel("acme/other", [{ provider: "oa-2", upstream_model: "o1" }]);
export const SPEECH = {
  ...chatModel("acme/tts", [
    { provider: "oa-1", upstream_model: "t1" },
    { provider: "oa-2", upstream_model: "t2" },
  ], []),
  kind: "speech",
} as Model;

export const CATALOG = new Catalog(PROVIDERS, [MIXED, OTHER, SPEECH]);

export const CALLER: Caller = { requestId: "req_1", startedAt: 0, org: "org_1", keyId: "key_1" };

export function chatRequest(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: MIXED.id,
    messages: [{ role: "user", content: "hi" }],
    stream: false,
    extra: {},
    ...extra,
  };
}
