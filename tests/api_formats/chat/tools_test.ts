/**
 * Rule 6 (tool calling) on a common-dialect provider: models without `tools` refuse with
 * `tools_not_supported`; definitions, `tool_choice` and `parallel_tool_calls` are forwarded
 * whole (rule 7: on other providers the request passes through unchanged); the answer carries
 * `message.tool_calls` / `delta.tool_calls` with `finish_reason: "tool_calls"`; a tool loop
 * continues with the assistant turn and one `tool` message per call.
 */
import assert from "node:assert/strict";
import type {
  ChatCompletion,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import { chatModel, DEFAULT_CHAT_PARAMS } from "../../helpers/harness.ts";
import {
  assertErrorShape,
  deltaOf,
  isRecord,
  readToEnd,
  sseChunks,
  upstreamChatBodies,
  user,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/tools";
const PARALLEL = "acme/parallel";
const models = [chatModel(MODEL, "up"), chatModel(PARALLEL, "up+parallel")];

const weather: ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather of a city.",
    strict: true,
    parameters: {
      type: "object",
      properties: {
        location: { type: "string", description: "City name" },
        unit: { type: "string", enum: ["c", "f"] },
        days: { type: "integer", minimum: 1, maximum: 7 },
      },
      required: ["location", "unit", "days"],
      additionalProperties: false,
    },
  },
};
const time: ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_time",
    strict: true,
    parameters: {
      type: "object",
      properties: { zone: { type: "string" } },
      required: ["zone"],
      additionalProperties: false,
    },
  },
};
const ask = [user("What is the weather and the time in Lyon?")];

function functionCalls(
  calls: ChatCompletionMessageToolCall[] | undefined,
): ChatCompletionMessageFunctionToolCall[] {
  assert.ok(calls && calls.length > 0, "the answer must carry tool_calls");
  return calls.map((call) => {
    assert.equal(call.type, "function");
    return call as ChatCompletionMessageFunctionToolCall;
  });
}

/** Asserts a tool call is complete: id, name, and arguments that parse per the schema. */
function assertCall(call: ChatCompletionMessageFunctionToolCall, name: string): void {
  assert.equal(typeof call.id, "string");
  assert.ok(call.id.length > 0);
  assert.equal(call.function.name, name);
  const args: unknown = JSON.parse(call.function.arguments);
  assert.ok(isRecord(args), "arguments must be a JSON object");
  const tool = name === "get_weather" ? weather : time;
  const required = (tool.function.parameters as { required: string[] }).required;
  for (const key of required) assert.ok(key in args, `argument '${key}' missing`);
}

function assertToolAnswer(
  completion: ChatCompletion,
  names: string[],
): ChatCompletionMessageFunctionToolCall[] {
  const choice = completion.choices[0];
  assert.ok(choice);
  assert.equal(choice.finish_reason, "tool_calls");
  const calls = functionCalls(choice.message.tool_calls);
  assert.deepEqual(calls.map((c) => c.function.name), names);
  for (const call of calls) assertCall(call, call.function.name);
  assert.equal(new Set(calls.map((c) => c.id)).size, calls.length, "call ids are distinct");
  return calls;
}

Deno.test("POST /v1/chat/completions — tools on a model without `tools` answer 400 tools_not_supported", () =>
  withHarness({
    models: [
      chatModel(MODEL, "up", {
        supported_parameters: DEFAULT_CHAT_PARAMS.filter((p) =>
          !["tools", "tool_choice", "parallel_tool_calls"].includes(p)
        ),
      }),
    ],
  }, async (h) => {
    for (const stream of [false, true]) {
      const res = await h.post("/v1/chat/completions", {
        model: MODEL,
        messages: ask,
        tools: [weather],
        stream,
      });
      const text = await res.text();
      assert.equal(res.status, 400, text);
      assertErrorShape(JSON.parse(text), "tools_not_supported");
    }
    assert.equal(upstreamChatBodies(h).length, 0, "no upstream call");
  }));

Deno.test("POST /v1/chat/completions — tool definitions, tool_choice and parallel_tool_calls are forwarded whole", () =>
  withHarness({ models }, async (h) => {
    const choices = [
      {
        tool_choice: { type: "function", function: { name: "get_time" } },
        parallel_tool_calls: false,
      },
      { tool_choice: "required", parallel_tool_calls: true },
      { tool_choice: "none" },
      { tool_choice: "auto" },
    ] as const;
    for (const extra of choices) {
      h.sim.reset();
      const res = await h.post("/v1/chat/completions", {
        model: MODEL,
        messages: ask,
        tools: [weather, time],
        ...extra,
      });
      assert.equal(res.status, 200, await res.clone().text());
      const body: unknown = await res.json();
      assert.ok(isRecord(body));
      const [sent] = upstreamChatBodies(h);
      assert.ok(sent);
      assert.deepEqual(sent.tools, [weather, time], "tool definitions must arrive unchanged");
      assert.deepEqual(sent.tool_choice, extra.tool_choice);
      if ("parallel_tool_calls" in extra) {
        assert.equal(sent.parallel_tool_calls, extra.parallel_tool_calls);
      }
    }
  }));

Deno.test("POST /v1/chat/completions — non-stream tool call carries message.tool_calls and finish_reason tool_calls", () =>
  withHarness({ models }, async (h) => {
    const one = await h.client.chat.completions.create({
      model: MODEL,
      messages: ask,
      tools: [weather, time],
    });
    assertToolAnswer(one, ["get_weather"]);
    const forced = await h.client.chat.completions.create({
      model: MODEL,
      messages: ask,
      tools: [weather, time],
      tool_choice: { type: "function", function: { name: "get_time" } },
    });
    assertToolAnswer(forced, ["get_time"]);
    const two = await h.client.chat.completions.create({
      model: PARALLEL,
      messages: ask,
      tools: [weather, time],
    });
    assertToolAnswer(two, ["get_weather", "get_time"]);
  }));

Deno.test("POST /v1/chat/completions — streamed tool calls assemble from delta.tool_calls with the SDK", () =>
  withHarness({ models }, async (h) => {
    for (
      const [model, names] of [[MODEL, ["get_weather"]], [PARALLEL, [
        "get_weather",
        "get_time",
      ]]] as const
    ) {
      const runner = h.client.chat.completions.stream({
        model,
        messages: ask,
        tools: [weather, time],
        stream_options: { include_usage: true },
      });
      const final = await runner.finalChatCompletion();
      assertToolAnswer(final as ChatCompletion, [...names]);
    }
  }));

Deno.test("POST /v1/chat/completions — raw stream of a tool call: delta.tool_calls chunks and finish_reason tool_calls", () =>
  withHarness({ models }, async (h) => {
    const res = await h.post("/v1/chat/completions", {
      model: PARALLEL,
      messages: ask,
      tools: [weather, time],
      stream: true,
    });
    assert.equal(res.status, 200);
    const { text, clean } = await readToEnd(res);
    assert.ok(clean);
    assert.ok(text.endsWith("data: [DONE]\n\n"));
    const chunks = sseChunks(text);
    const args = new Map<number, { id: string; name: string; arguments: string }>();
    const finishes: unknown[] = [];
    for (const chunk of chunks) {
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      const first: unknown = choices[0];
      if (isRecord(first) && first.finish_reason != null) finishes.push(first.finish_reason);
      const calls = deltaOf(chunk)?.tool_calls;
      if (!Array.isArray(calls)) continue;
      for (const call of calls) {
        assert.ok(isRecord(call) && typeof call.index === "number");
        const entry = args.get(call.index) ?? { id: "", name: "", arguments: "" };
        if (typeof call.id === "string") entry.id = call.id;
        const fn = isRecord(call.function) ? call.function : {};
        if (typeof fn.name === "string") entry.name += fn.name;
        if (typeof fn.arguments === "string") entry.arguments += fn.arguments;
        args.set(call.index, entry);
      }
    }
    assert.deepEqual(finishes, ["tool_calls"]);
    assert.deepEqual([...args.keys()], [0, 1]);
    assert.deepEqual([...args.values()].map((c) => c.name), ["get_weather", "get_time"]);
    for (const call of args.values()) {
      assert.ok(call.id.length > 0);
      assert.ok(isRecord(JSON.parse(call.arguments)));
    }
    assert.ok(isRecord(chunks.at(-1)?.usage), "usage still comes last");
  }));

for (const stream of [false, true]) {
  Deno.test(`POST /v1/chat/completions — a full tool loop (${stream ? "stream" : "non-stream"}) answers text on the second turn`, () =>
    withHarness({ models }, async (h) => {
      const tools = [weather, time];
      const first = stream
        ? await h.client.chat.completions.stream({ model: PARALLEL, messages: ask, tools })
          .finalChatCompletion() as ChatCompletion
        : await h.client.chat.completions.create({ model: PARALLEL, messages: ask, tools });
      const calls = assertToolAnswer(first, ["get_weather", "get_time"]);
      const assistant = first.choices[0]?.message;
      assert.ok(assistant);
      const conversation: ChatCompletionMessageParam[] = [
        ...ask,
        { role: "assistant", content: assistant.content ?? null, tool_calls: calls },
        ...calls.map((call) => ({
          role: "tool" as const,
          tool_call_id: call.id,
          content: `result of ${call.function.name}`,
        })),
      ];
      h.sim.reset();
      let text: string;
      let finish: string | null | undefined;
      if (stream) {
        const second = await h.client.chat.completions.create({
          model: PARALLEL,
          messages: conversation,
          tools,
          stream: true,
        });
        text = "";
        for await (const chunk of second) {
          text += chunk.choices[0]?.delta.content ?? "";
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
      } else {
        const second = await h.client.chat.completions.create({
          model: PARALLEL,
          messages: conversation,
          tools,
        });
        text = second.choices[0]?.message.content ?? "";
        finish = second.choices[0]?.finish_reason;
        assert.equal(second.choices[0]?.message.tool_calls?.length ?? 0, 0);
      }
      assert.ok(text.length > 0, "the second turn answers text");
      assert.equal(finish, "stop");
      const [sent] = upstreamChatBodies(h);
      assert.ok(sent && Array.isArray(sent.messages));
      const sentAssistant: unknown = sent.messages[1];
      assert.ok(isRecord(sentAssistant));
      assert.equal(sentAssistant.role, "assistant");
      assert.deepEqual(
        sentAssistant.tool_calls,
        calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.function.name, arguments: c.function.arguments },
        })),
      );
      const sentTools = sent.messages.slice(2);
      assert.deepEqual(
        sentTools.map((m) => isRecord(m) ? [m.role, m.tool_call_id, m.content] : undefined),
        calls.map((c) => ["tool", c.id, `result of ${c.function.name}`]),
      );
    }));
}
