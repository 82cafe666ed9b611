import assert from "node:assert/strict";
import { packReasoning } from "../../../src/api_formats/responses/reasoning_envelope.ts";
import type { Response as SdkResponse } from "openai/resources/responses/responses";
import type { ChatResult } from "../../../src/canonical/chat.ts";
import { Model } from "../../../src/catalog/schema.ts";
import { decodeResponsesRequest } from "../../../src/api_formats/responses/decode_request.ts";
import { encodeResponse } from "../../../src/api_formats/responses/encode_response.ts";
import { ResponsesRequestSchema } from "../../../src/api_formats/responses/request_schema.ts";
import { responseEcho } from "../../../src/api_formats/responses/response_echo.ts";
import type { ResponseObject } from "../../../src/api_formats/responses/response_object.ts";

/** `output_text` is an SDK getter, not on the wire; `access_programs` is OpenAI-only. */
type WireSdkResponse = Omit<SdkResponse, "output_text" | "access_programs">;

const ctx = {
  id: "resp_e1",
  createdAt: 1_700_000_000,
  model: "acme/think-1",
  excludeReasoning: false,
};
const details = [
  { type: "reasoning.text" as const, text: "I should call f", signature: "sig-1", index: 0 },
  { type: "reasoning.encrypted" as const, data: "ENC", id: "x", index: 1 },
];
const toolResult: ChatResult = {
  content: null,
  reasoning: "I should call f",
  reasoningDetails: details,
  toolCalls: [
    { id: "call_1", type: "function", function: { name: "f", arguments: '{"x":1}' } },
    { id: "call_2", type: "function", function: { name: "g", arguments: "{}" } },
  ],
  finishReason: "tool_calls",
  usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30, reasoningTokens: 6 },
};

Deno.test("encodeResponse — the object is assignable to the SDK's Response type", () => {
  const response: ResponseObject = encodeResponse(toolResult, ctx);
  const sdk: WireSdkResponse = response;
  assert.equal(sdk.object, "response");
});

Deno.test("encodeResponse — reasoning, function calls, usage and defaults", () => {
  const response = encodeResponse(toolResult, { ...ctx, completedAt: 1_700_000_005 });
  assert.deepEqual(response, {
    id: "resp_e1",
    object: "response",
    created_at: 1_700_000_000,
    completed_at: 1_700_000_005,
    status: "completed",
    error: null,
    incomplete_details: null,
    model: "acme/think-1",
    output: [
      {
        type: "reasoning",
        id: "rs_e1_0",
        summary: [],
        content: [{ type: "reasoning_text", text: "I should call f" }],
        encrypted_content: packReasoning(details),
        reasoning_details: details,
        status: "completed",
      },
      {
        type: "function_call",
        id: "fc_e1_1",
        call_id: "call_1",
        name: "f",
        arguments: '{"x":1}',
        status: "completed",
      },
      {
        type: "function_call",
        id: "fc_e1_2",
        call_id: "call_2",
        name: "g",
        arguments: "{}",
        status: "completed",
      },
    ],
    previous_response_id: null,
    store: false,
    instructions: null,
    max_output_tokens: null,
    metadata: null,
    parallel_tool_calls: true,
    reasoning: { effort: null, summary: null },
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    usage: {
      input_tokens: 20,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 6 },
      total_tokens: 30,
    },
  });
});

Deno.test("encodeResponse — text answer cut by length is incomplete; unknown usage is omitted", () => {
  const response = encodeResponse(
    { content: "partial", finishReason: "length", usage: { promptTokens: 3 } },
    ctx,
  );
  assert.equal(response.status, "incomplete");
  assert.deepEqual(response.incomplete_details, { reason: "max_output_tokens" });
  assert.deepEqual(response.output, [{
    type: "message",
    id: "msg_e1_0",
    role: "assistant",
    status: "incomplete",
    content: [{ type: "output_text", text: "partial", annotations: [] }],
  }]);
  assert.equal("usage" in response, false);
});

Deno.test("encodeResponse — excludeReasoning keeps only encrypted details", () => {
  const response = encodeResponse(toolResult, { ...ctx, excludeReasoning: true });
  assert.deepEqual(response.output[0], {
    type: "reasoning",
    id: "rs_e1_0",
    summary: [],
    encrypted_content: packReasoning([details[1]!]),
    reasoning_details: [details[1]],
    status: "completed",
  });
  assert.ok(!JSON.stringify(response).includes("I should call f"));
});

Deno.test("encodeResponse — tool calls follow a reasoning item only when reasoning is replayed", () => {
  const { reasoning: _reasoning, reasoningDetails: _details, ...bare } = toolResult;
  // No reasoning and none to replay: no (empty) reasoning item.
  assert.ok(encodeResponse(bare, ctx).output.every((o) => o.type === "function_call"));
  // Thinking on: an item the client can replay, even when the model showed nothing.
  const output = encodeResponse(bare, { ...ctx, replayReasoning: true }).output;
  assert.deepEqual(output[0], {
    type: "reasoning",
    id: "rs_e1_0",
    summary: [],
    encrypted_content: packReasoning([]),
    reasoning_details: [],
    status: "completed",
  });
});

Deno.test("encodeResponse — echoes the request fields", () => {
  const body = ResponsesRequestSchema.parse({
    model: "acme/think-1",
    input: "x",
    instructions: "Be kind.",
    tools: [{ type: "function", name: "f", description: "does f", parameters: { type: "object" } }],
    tool_choice: "required",
    parallel_tool_calls: false,
    temperature: 0.5,
    max_output_tokens: 64,
    reasoning: { effort: "high", summary: "auto" },
    metadata: { team: "a", n: 1 },
    user: "u",
  });
  const response = encodeResponse(toolResult, { ...ctx, echo: responseEcho(body) });
  assert.equal(response.instructions, "Be kind.");
  assert.deepEqual(response.tools, [
    {
      type: "function",
      name: "f",
      description: "does f",
      parameters: { type: "object" },
      strict: null,
    },
  ]);
  assert.equal(response.tool_choice, "required");
  assert.equal(response.parallel_tool_calls, false);
  assert.equal(response.temperature, 0.5);
  assert.equal(response.max_output_tokens, 64);
  assert.deepEqual(response.reasoning, { effort: "high", summary: "auto" });
  assert.deepEqual(response.metadata, { team: "a" });
  assert.equal(response.user, "u");
  const sdk: WireSdkResponse = response;
  assert.equal(sdk.tools.length, 1);
});

Deno.test("encodeResponse — replaying the output continues the tool loop with the same details", () => {
  const model = Model.parse({
    id: "acme/think-1",
    kind: "chat",
    sovereignty: "strict",
    reasoning: {},
    routes: [{ provider: "acme", upstream_model: "t" }],
  });
  const output = JSON.parse(JSON.stringify(encodeResponse(toolResult, ctx).output));
  const body = ResponsesRequestSchema.parse({
    model: model.id,
    input: [
      { role: "user", content: "go" },
      ...output,
      { type: "function_call_output", call_id: "call_1", output: "1" },
      { type: "function_call_output", call_id: "call_2", output: "2" },
    ],
  });
  const request = decodeResponsesRequest(body, model);
  assert.deepEqual(request.messages[1], {
    role: "assistant",
    content: null,
    reasoning: "I should call f",
    reasoningDetails: details,
    toolCalls: toolResult.toolCalls,
  });
  assert.deepEqual(request.messages.slice(2).map((m) => m.role), ["tool", "tool"]);
});
