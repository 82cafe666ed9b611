import assert from "node:assert/strict";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import type { Dialect } from "../../src/catalog/schema.ts";
import { GatewayError } from "../../src/errors.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import { checkRebuildingRefusals } from "../../src/providers/rebuilding_refusals.ts";

function route(dialect: Dialect, upstream: string): ResolvedRoute {
  return {
    providerId: "p",
    dialect,
    provider: { dialect, base_url: "http://127.0.0.1:1", zdr: false, unsupported_parameters: [] },
    route: { provider: "p", upstream_model: upstream },
    model: {
      id: "p/m",
      kind: "chat",
      state: "active",
      sovereignty: "pragmatic",
      pricing: {},
      supported_parameters: ["tools"],
      routes: [{ provider: "p", upstream_model: upstream }],
    },
  };
}

const tool = { type: "function" as const, function: { name: "f", parameters: { type: "object" } } };
const base: ChatRequest = {
  model: "p/m",
  messages: [{ role: "user", content: "x" }],
  stream: false,
  tools: [tool],
  extra: {},
};
const CLAUDE_BEDROCK = route("bedrock", "anthropic.claude-sonnet-4-20250514-v1:0");
const NOVA = route("bedrock", "amazon.nova-pro-v1:0");
const VERTEX = route("vertex-anthropic", "claude-sonnet-4@20250514");
const OPENAI = route("openai", "claude-via-openai");

function refused(request: ChatRequest, r: ResolvedRoute, field: string): void {
  assert.throws(() => checkRebuildingRefusals(request, r), (e) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.status, 400);
    assert.equal(e.code, field);
    assert.equal(e.param, field);
    assert.match(e.message, /'p\/m'/);
    return true;
  });
}

Deno.test("checkRebuildingRefusals — tool_choice none is refused on every Bedrock model", () => {
  refused({ ...base, toolChoice: "none" }, NOVA, "tool_choice");
  refused({ ...base, toolChoice: "none" }, CLAUDE_BEDROCK, "tool_choice");
  checkRebuildingRefusals({ ...base, toolChoice: "none" }, VERTEX);
});

Deno.test("checkRebuildingRefusals — parallel_tool_calls false is refused on Bedrock only", () => {
  refused({ ...base, parallelToolCalls: false }, NOVA, "parallel_tool_calls");
  refused({ ...base, parallelToolCalls: false }, CLAUDE_BEDROCK, "parallel_tool_calls");
  checkRebuildingRefusals({ ...base, parallelToolCalls: false }, VERTEX);
  checkRebuildingRefusals({ ...base, parallelToolCalls: true }, NOVA);
});

Deno.test("checkRebuildingRefusals — a forced tool with reasoning is refused on the Anthropic family", () => {
  const named = { type: "function" as const, function: { name: "f" } };
  for (const r of [CLAUDE_BEDROCK, VERTEX]) {
    refused({ ...base, toolChoice: "required", reasoning: { effort: "low" } }, r, "tool_choice");
    refused({ ...base, toolChoice: named, reasoning: { maxTokens: 2000 } }, r, "tool_choice");
    checkRebuildingRefusals({ ...base, toolChoice: "required", reasoning: { effort: "none" } }, r);
    checkRebuildingRefusals({ ...base, toolChoice: "required" }, r);
    checkRebuildingRefusals({ ...base, toolChoice: "auto", reasoning: { effort: "high" } }, r);
  }
  checkRebuildingRefusals({ ...base, toolChoice: "required", reasoning: { effort: "low" } }, NOVA);
});

Deno.test("checkRebuildingRefusals — hosted tools are refused on rebuilding routes", () => {
  const hosted = { ...base, hostedTools: [{ type: "web_search" }] };
  for (const r of [NOVA, CLAUDE_BEDROCK, VERTEX]) refused(hosted, r, "tools");
  checkRebuildingRefusals({ ...base, hostedTools: [] }, NOVA);
});

Deno.test("checkRebuildingRefusals — response_format is ignored and openai routes pass unchanged", () => {
  checkRebuildingRefusals({ ...base, responseFormat: { type: "json_object" } }, CLAUDE_BEDROCK);
  checkRebuildingRefusals(
    {
      ...base,
      toolChoice: "none",
      parallelToolCalls: false,
      hostedTools: [{ type: "mcp" }],
      reasoning: { effort: "high" },
    },
    OPENAI,
  );
});
