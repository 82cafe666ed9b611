/**
 * The stream pass-through through the real stack: the official `openai` SDK
 * against the gateway in front of the openai-dialect simulator. A chat stream on an
 * `openai`-dialect route forwards the upstream's chunks (the simulator's `service_tier` member
 * shows it) behind the gateway's own head; asking `reasoning.exclude` keeps the ordinary,
 * re-encoded path. Both give the SDK the same answer and settle the same row.
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { chatModel } from "../../helpers/harness.ts";
import type { Harness } from "../../helpers/harness.ts";
import { requestRows, user, withHarness } from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const UPSTREAM = "up-model-2503+chunks-12";
const messages = [user("What is the weather in Paris and the time in Berlin?")];

async function streamed(h: Harness, extra: Record<string, unknown> = {}) {
  const { data: stream, response } = await h.client.chat.completions
    .create({ model: MODEL, messages, stream: true, ...extra })
    .withResponse();
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, requestId: response.headers.get("x-sovra-request-id") ?? "" };
}

const forwarded = (c: ChatCompletionChunk) => "service_tier" in c;

Deno.test("POST /v1/chat/completions — stream pass-through: upstream chunks behind the gateway's head, same answer and bill as the re-encoded path", () =>
  withHarness({ models: [chatModel(MODEL, UPSTREAM)] }, async (h) => {
    const fast = await streamed(h);
    const ordinary = await streamed(h, { reasoning: { exclude: true } });

    assert.ok(fast.chunks.some(forwarded), "the pass-through forwarded upstream chunks");
    assert.ok(!ordinary.chunks.some(forwarded), "reasoning.exclude keeps the re-encoded path");
    for (const { chunks, requestId } of [fast, ordinary]) {
      for (const chunk of chunks) {
        assert.equal(chunk.model, MODEL, "the catalog id, never the upstream's name");
        assert.equal(chunk.id, `chatcmpl-${requestId.slice(4)}`);
        assert.equal(chunk.object, "chat.completion.chunk");
      }
      assert.equal(chunks[0]?.choices[0]?.delta.role, "assistant");
      const last = chunks.at(-1)!;
      assert.deepEqual(last.choices, [], "usage comes last, on its own chunk");
      assert.ok(last.usage && last.usage.completion_tokens > 0);
    }
    const text = (r: typeof fast) =>
      r.chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    assert.ok(text(fast).length > 0);
    assert.equal(text(fast), text(ordinary));
    assert.deepEqual(fast.chunks.at(-1)!.usage, ordinary.chunks.at(-1)!.usage);
    const finish = (r: typeof fast) =>
      r.chunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(Boolean);
    assert.deepEqual(finish(fast), ["stop"]);
    assert.deepEqual(finish(ordinary), ["stop"]);
    assert.ok(
      !JSON.stringify(fast.chunks).includes("up-model-2503"),
      "no upstream model name leaks",
    );

    const rows = await requestRows(h);
    assert.equal(rows.length, 2);
    const [a, b] = rows;
    for (
      const key of [
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "cost_micro_eur",
        "estimated",
      ] as const
    ) {
      assert.equal(a![key], b![key], key);
    }
    assert.equal(a!.estimated, false);
    assert.ok(a!.cost_micro_eur > 0);
  }));

Deno.test("POST /v1/chat/completions — stream pass-through: parallel tool calls arrive whole through the SDK", () =>
  withHarness({ models: [chatModel(MODEL, "up+parallel")] }, async (h) => {
    const tools = ["get_weather", "get_time"].map((name) => ({
      type: "function" as const,
      function: {
        name,
        parameters: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
        },
      },
    }));
    const fast = await streamed(h, { tools });
    const ordinary = await streamed(h, { tools, reasoning: { exclude: true } });
    assert.ok(fast.chunks.some(forwarded));
    const calls = (r: typeof fast) => {
      const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
      for (const chunk of r.chunks) {
        for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
          const entry = byIndex.get(call.index) ?? { id: "", name: "", arguments: "" };
          entry.id ||= call.id ?? "";
          entry.name ||= call.function?.name ?? "";
          entry.arguments += call.function?.arguments ?? "";
          byIndex.set(call.index, entry);
        }
      }
      return [...byIndex.values()];
    };
    const fastCalls = calls(fast);
    assert.equal(fastCalls.length, 2);
    for (const call of fastCalls) {
      assert.ok(call.id.length > 0);
      assert.equal(typeof JSON.parse(call.arguments), "object");
    }
    assert.deepEqual(fastCalls.map((c) => c.name), calls(ordinary).map((c) => c.name));
    assert.deepEqual(fastCalls.map((c) => c.arguments), calls(ordinary).map((c) => c.arguments));
    const finish = fast.chunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(
      Boolean,
    );
    assert.deepEqual(finish, ["tool_calls"]);
  }));
