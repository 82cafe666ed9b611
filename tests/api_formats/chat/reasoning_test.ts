/**
 * Rule 9 (reasoning models) and rule 6's reasoning part: `message.reasoning` and/or
 * `message.reasoning_details` come back unless `reasoning.exclude` is true (then neither,
 * streams included); a tool loop sends that turn's `reasoning_details` back and the service
 * forwards them unchanged.
 */
import assert from "node:assert/strict";
import { chatModel, DEFAULT_CHAT_PARAMS } from "../../helpers/harness.ts";
import {
  deltaOf,
  isRecord,
  type Json,
  readToEnd,
  sseChunks,
  upstreamChatBodies,
  user,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/thinker";
const PLAIN = "acme/plain";
const models = [
  chatModel(MODEL, "up+reasoning", {
    reasoning: {
      supported_efforts: ["low", "medium", "high"],
      default_effort: "medium",
      supports_max_tokens: false,
      mandatory: false,
    },
  }),
  chatModel(PLAIN, "up+reasoning", {
    supported_parameters: DEFAULT_CHAT_PARAMS.filter((p) => p !== "reasoning"),
  }),
];
const messages = [user("Why is the sky blue?")];
const weather = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { location: { type: "string" } },
      required: ["location"],
    },
  },
};

async function message(res: Response): Promise<Json> {
  assert.equal(res.status, 200);
  const body: unknown = await res.json();
  assert.ok(isRecord(body) && Array.isArray(body.choices));
  const choice: unknown = body.choices[0];
  assert.ok(isRecord(choice) && isRecord(choice.message));
  return choice.message;
}

function hasReasoning(m: Json | undefined): boolean {
  return m !== undefined && (m.reasoning != null || m.reasoning_details != null);
}

Deno.test("POST /v1/chat/completions — a reasoning model answers message.reasoning and/or reasoning_details", () =>
  withHarness({ models }, async (h) => {
    const m = await message(
      await h.post("/v1/chat/completions", {
        model: MODEL,
        messages,
        reasoning: { effort: "low" },
      }),
    );
    assert.ok(hasReasoning(m), "reasoning or reasoning_details must be present");
    if (m.reasoning != null) assert.equal(typeof m.reasoning, "string");
    if (m.reasoning_details != null) {
      assert.ok(Array.isArray(m.reasoning_details) && m.reasoning_details.length > 0);
      for (const d of m.reasoning_details) assert.ok(isRecord(d) && typeof d.type === "string");
    }
    assert.ok(typeof m.content === "string" && m.content.length > 0);
  }));

Deno.test("POST /v1/chat/completions — reasoning.exclude removes reasoning and reasoning_details", () =>
  withHarness({ models }, async (h) => {
    const m = await message(
      await h.post("/v1/chat/completions", {
        model: MODEL,
        messages,
        reasoning: { exclude: true },
      }),
    );
    assert.ok(!("reasoning" in m) || m.reasoning == null, "message.reasoning must be absent");
    assert.ok(!("reasoning_details" in m) || m.reasoning_details == null);
    assert.ok(typeof m.content === "string" && m.content.length > 0);
  }));

Deno.test("POST /v1/chat/completions — streamed reasoning arrives in deltas and reasoning.exclude removes it", () =>
  withHarness({ models }, async (h) => {
    const reasoningDeltas = async (reasoning: Json) => {
      const res = await h.post("/v1/chat/completions", {
        model: MODEL,
        messages,
        stream: true,
        reasoning,
      });
      assert.equal(res.status, 200);
      const { text, clean } = await readToEnd(res);
      assert.ok(clean && text.endsWith("data: [DONE]\n\n"));
      const deltas = sseChunks(text).map(deltaOf);
      const content = deltas.map((d) => (typeof d?.content === "string" ? d.content : "")).join("");
      assert.ok(content.length > 0, "content still streams");
      return deltas.filter(hasReasoning).length;
    };
    assert.ok((await reasoningDeltas({ effort: "medium" })) > 0, "reasoning deltas expected");
    assert.equal(await reasoningDeltas({ exclude: true }), 0, "no reasoning delta with exclude");
  }));

Deno.test("POST /v1/chat/completions — a tool loop forwards the turn's reasoning_details unchanged", () =>
  withHarness({ models }, async (h) => {
    const first = await message(
      await h.post("/v1/chat/completions", { model: MODEL, messages, tools: [weather] }),
    );
    assert.ok(Array.isArray(first.tool_calls) && first.tool_calls.length === 1);
    assert.ok(Array.isArray(first.reasoning_details), "the tool turn carries reasoning_details");
    const call: unknown = first.tool_calls[0];
    assert.ok(isRecord(call) && typeof call.id === "string");
    const details = first.reasoning_details;
    h.sim.reset();
    const second = await message(
      await h.post("/v1/chat/completions", {
        model: MODEL,
        tools: [weather],
        messages: [
          ...messages,
          {
            role: "assistant",
            content: first.content ?? null,
            tool_calls: first.tool_calls,
            reasoning_details: details,
          },
          { role: "tool", tool_call_id: call.id, content: "Sunny, 21 degrees" },
        ],
      }),
    );
    assert.ok(typeof second.content === "string" && second.content.length > 0);
    const [sent] = upstreamChatBodies(h);
    assert.ok(sent && Array.isArray(sent.messages));
    const assistant: unknown = sent.messages[1];
    assert.ok(isRecord(assistant));
    assert.deepEqual(assistant.reasoning_details, details, "reasoning_details changed on the way");
    assert.deepEqual(assistant.tool_calls, first.tool_calls);
  }));

Deno.test("POST /v1/chat/completions — `reasoning` on a model without it is dropped (rule 1), not refused", () =>
  withHarness({ models }, async (h) => {
    const res = await h.post("/v1/chat/completions", {
      model: PLAIN,
      messages,
      reasoning: { effort: "high" },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const [sent] = upstreamChatBodies(h);
    assert.ok(sent && !("reasoning" in sent), "reasoning reached the upstream");
    assert.match(res.headers.get("x-sovra-dropped-params") ?? "", /\breasoning\b/);
  }));
