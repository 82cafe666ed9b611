import assert from "node:assert/strict";
import { z } from "zod";
import { Model } from "../../../src/catalog/schema.ts";
import { decodeResponsesRequest } from "../../../src/api_formats/responses/decode_request.ts";
import { ResponsesRequestSchema } from "../../../src/api_formats/responses/request_schema.ts";
import { GatewayError } from "../../../src/errors.ts";
import { packReasoning } from "../../../src/api_formats/responses/reasoning_envelope.ts";

const plainModel = Model.parse({
  id: "acme/chat-1",
  kind: "chat",
  sovereignty: "strict",
  supported_parameters: ["tools"],
  routes: [{ provider: "acme", upstream_model: "chat-1" }],
});
const reasoningModel = Model.parse({
  ...plainModel,
  id: "acme/think-1",
  reasoning: { supported_efforts: ["low", "high"] },
});

/** The catalog's Claude: reasoning on request only. */
const thinkingModel = reasoningModel;
/** gpt-oss, magistral: reasoning always on. */
const mandatoryModel = Model.parse({
  ...plainModel,
  id: "acme/think-always",
  reasoning: { supported_efforts: ["high"], default_effort: "high", mandatory: true },
});

function decode(body: Record<string, unknown>, model = plainModel) {
  return decodeResponsesRequest(ResponsesRequestSchema.parse({ model: model.id, ...body }), model);
}

function assertRefused(body: Record<string, unknown>, field: string, model = plainModel) {
  assert.throws(() => decode(body, model), (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    assert.equal(error.code, field);
    assert.equal(error.param, field);
    return true;
  });
}

Deno.test("decodeResponsesRequest — string input, instructions and sampling fields", () => {
  const request = decode({
    input: "Hi",
    instructions: "Be brief.",
    max_output_tokens: 100,
    temperature: 0.2,
    top_p: 0.9,
    stream: true,
    user: "u-1",
    reasoning: { effort: "low", exclude: true, summary: "auto" },
    text: { format: { type: "json_object" } },
    include: ["reasoning.encrypted_content"],
    store: false,
  });
  assert.deepEqual(request, {
    model: "acme/chat-1",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi", origin: "input" },
    ],
    stream: true,
    temperature: 0.2,
    topP: 0.9,
    maxTokens: 100,
    reasoning: { effort: "low", exclude: true },
    user: "u-1",
    responseFormat: { type: "json_object" },
    extra: {},
  });
});

Deno.test("decodeResponsesRequest — message items: roles, parts, developer as system", () => {
  const request = decode({
    input: [
      { role: "developer", content: "Rules." },
      {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "a" }, { type: "input_text", text: "b" }],
      },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "answer", annotations: [] }],
      },
      { role: "user", content: "next" },
    ],
  });
  assert.deepEqual(request.messages, [
    { role: "system", content: "Rules." },
    { role: "user", content: "a\nb", origin: "input[1]" },
    { role: "assistant", content: "answer" },
    { role: "user", content: "next", origin: "input[3]" },
  ]);
});

Deno.test("decodeResponsesRequest — tool loop: reasoning + calls become one assistant turn", () => {
  const details = [{ type: "reasoning.text", text: "think", signature: "sig", index: 0 }];
  const request = decode({
    input: [
      { role: "user", content: "Weather?" },
      { type: "reasoning", id: "rs_1", summary: [], reasoning_details: details },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "weather",
        arguments: '{"c":"A"}',
      },
      { type: "function_call", call_id: "call_2", name: "weather", arguments: '{"c":"B"}' },
      { type: "function_call_output", call_id: "call_1", output: "sunny" },
      {
        type: "function_call_output",
        call_id: "call_2",
        output: [{ type: "input_text", text: "rain" }],
      },
    ],
    tools: [{ type: "function", name: "weather", parameters: { type: "object" }, strict: true }],
    tool_choice: { type: "function", name: "weather" },
    parallel_tool_calls: false,
  }, reasoningModel);
  assert.deepEqual(request.messages, [
    { role: "user", content: "Weather?", origin: "input[0]" },
    {
      role: "assistant",
      content: null,
      toolCalls: [
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"c":"A"}' } },
        { id: "call_2", type: "function", function: { name: "weather", arguments: '{"c":"B"}' } },
      ],
      reasoningDetails: details,
    },
    { role: "tool", content: "sunny", toolCallId: "call_1", origin: "input[4]" },
    { role: "tool", content: "rain", toolCallId: "call_2", origin: "input[5]" },
  ]);
  assert.deepEqual(request.tools, [{
    type: "function",
    function: { name: "weather", parameters: { type: "object" }, strict: true },
  }]);
  assert.deepEqual(request.toolChoice, { type: "function", function: { name: "weather" } });
  assert.equal(request.parallelToolCalls, false);
});

Deno.test("decodeResponsesRequest — encrypted_content becomes a reasoning.encrypted detail", () => {
  const request = decode({
    input: [
      { role: "user", content: "q" },
      { type: "reasoning", id: "rs_9", summary: [], encrypted_content: "gAAA" },
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c", output: "r" },
    ],
  }, reasoningModel);
  const assistant = request.messages[1];
  assert.ok(assistant?.role === "assistant");
  assert.deepEqual(assistant.reasoningDetails, [{
    type: "reasoning.encrypted",
    data: "gAAA",
    id: "rs_9",
  }]);
});

Deno.test("decodeResponsesRequest — store: true is refused", () => {
  assertRefused({ input: "x", store: true }, "store");
});

Deno.test("decodeResponsesRequest — any previous_response_id is refused", () => {
  assertRefused({ input: "x", previous_response_id: "resp_1" }, "previous_response_id");
});

Deno.test("decodeResponsesRequest — image and file parts are refused as input", () => {
  assertRefused({
    input: [{ role: "user", content: [{ type: "input_image", image_url: "https://x/y.png" }] }],
  }, "input");
  assertRefused({
    input: [{
      role: "user",
      content: [{ type: "input_text", text: "see" }, { type: "input_file", file_id: "f" }],
    }],
  }, "input");
  assertRefused({
    input: [
      {
        type: "function_call_output",
        call_id: "c",
        output: [{ type: "input_image", file_id: "i" }],
      },
    ],
  }, "input");
});

Deno.test("decodeResponsesRequest — hosted tools are refused as tools", () => {
  assertRefused({ input: "x", tools: [{ type: "web_search" }] }, "tools");
  assertRefused({
    input: "x",
    tools: [{ type: "mcp", server_label: "s", server_url: "https://m" }],
  }, "tools");
});

Deno.test("decodeResponsesRequest — hosted or allowed_tools choices are refused as tool_choice", () => {
  assertRefused({ input: "x", tool_choice: { type: "web_search_preview" } }, "tool_choice");
  assertRefused(
    { input: "x", tool_choice: { type: "allowed_tools", mode: "auto", tools: [] } },
    "tool_choice",
  );
});

Deno.test("decodeResponsesRequest — with thinking on, a replayed call needs its reasoning item", () => {
  // A model that always thinks (gpt-oss, magistral).
  const reasoningModel = mandatoryModel;
  const input = [
    { role: "user", content: "q" },
    { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
    { type: "function_call_output", call_id: "c", output: "r" },
  ];
  assertRefused({ input }, "input", reasoningModel);
  // A reasoning item from an earlier user turn does not count.
  assertRefused(
    {
      input: [{ role: "user", content: "a" }, { type: "reasoning", summary: [] }, ...input],
    },
    "input",
    reasoningModel,
  );
  // Each assistant turn of a multi-step loop needs its own reasoning item.
  const step = (id: string) => [
    { type: "function_call", call_id: id, name: "f", arguments: "{}" },
    { type: "function_call_output", call_id: id, output: "r" },
  ];
  const reasoning = { type: "reasoning", summary: [], reasoning_details: [] };
  assertRefused(
    { input: [{ role: "user", content: "q" }, reasoning, ...step("c1"), ...step("c2")] },
    "input",
    reasoningModel,
  );
  assert.equal(
    decode(
      {
        input: [{ role: "user", content: "q" }, reasoning, ...step("c1"), reasoning, ...step("c2")],
      },
      reasoningModel,
    ).messages.length,
    5,
  );
  // Non-reasoning models need none.
  assert.equal(decode({ input }).messages.length, 3);
  // On a model that thinks on request (Claude), asking for reasoning demands it too.
  assertRefused({ input, reasoning: { effort: "low" } }, "input", thinkingModel);
});

Deno.test("decodeResponsesRequest — without thinking no reasoning item is demanded", () => {
  const input = [
    { role: "user", content: "q" },
    { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
    { type: "function_call_output", call_id: "c", output: "r" },
  ];
  // A reasoning model with no reasoning asked (Claude's plain tool loop), effort none,
  // or reasoning asked but excluded (nothing was handed out to replay).
  assert.equal(decode({ input }, reasoningModel).messages.length, 3);
  assert.equal(decode({ input, reasoning: { effort: "none" } }, reasoningModel).messages.length, 3);
  assert.equal(
    decode({ input, reasoning: { effort: "low", exclude: true } }, reasoningModel).messages.length,
    3,
  );
  // A model that always thinks demands it.
  assertRefused({ input }, "input", mandatoryModel);
});

Deno.test("decodeResponsesRequest — the gateway's encrypted_content carries the details back", () => {
  const details = [{ type: "reasoning.text", text: "hm", signature: "sig" }] as const;
  const request = decode({
    input: [
      { role: "user", content: "q" },
      { type: "reasoning", summary: [], encrypted_content: packReasoning([...details]) },
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c", output: "r" },
    ],
  }, mandatoryModel);
  const assistant = request.messages[1];
  assert.equal(assistant?.role, "assistant");
  assert.deepEqual(assistant.reasoningDetails, details);
  const damaged = packReasoning([...details]).slice(0, -6) + "AAAA";
  assertRefused({
    input: [
      { role: "user", content: "q" },
      { type: "reasoning", summary: [], encrypted_content: damaged },
    ],
  }, "input");
});

Deno.test("decodeResponsesRequest — item references are refused as input", () => {
  assertRefused({ input: [{ type: "item_reference", id: "msg_1" }] }, "input");
});

Deno.test("ResponsesRequestSchema — requires model and input, rejects unknown item types", () => {
  assert.equal(ResponsesRequestSchema.safeParse({ input: "x" }).success, false);
  assert.equal(ResponsesRequestSchema.safeParse({ model: "a/b" }).success, false);
  assert.equal(
    ResponsesRequestSchema.safeParse({ model: "a/b", input: [{ type: "bogus" }] }).success,
    false,
  );
  assert.equal(
    ResponsesRequestSchema.safeParse({
      model: "a/b",
      input: [{ type: "function_call", call_id: "c" }],
    }).success,
    false,
  );
  const loose = ResponsesRequestSchema.parse({ model: "a/b", input: "x", truncation: "auto" });
  assert.equal(loose.truncation, "auto", "unknown fields pass");
});

Deno.test("ResponsesRequestSchema — converts to JSON Schema for /openapi.json", () => {
  const schema = z.toJSONSchema(ResponsesRequestSchema, { io: "input" }) as {
    required: string[];
    properties: Record<string, unknown>;
  };
  assert.deepEqual(schema.required.toSorted(), ["input", "model"]);
  assert.ok("tools" in schema.properties && "max_output_tokens" in schema.properties);
});
