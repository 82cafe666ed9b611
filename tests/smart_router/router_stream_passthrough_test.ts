/**
 * `router/<id>` chat streams take the stream pass-through through
 * the real stack, with the official `openai` SDK: the upstream's chunks are forwarded behind
 * the gateway's head (the simulator's `service_tier` member shows it), the tool-call ids of
 * the answer still pin the tool loop (a continuation lands on the same model after the dial
 * moved), and the answer, usage and settled row equal the re-encoded path's.
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { LARGE, SMALL, startRouterHarness } from "./router_support.ts";
import type { Harness } from "../helpers/harness.ts";

const TOOLS = ["get_weather", "get_time"].map((name) => ({
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
const ASK = { role: "user" as const, content: "What is the weather in Paris and the time there?" };

async function streamed(h: Harness, body: Record<string, unknown>) {
  const { data: stream, response } = await h.client.chat.completions
    .create({ model: "router/agent", stream: true, ...body } as never)
    .withResponse();
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<ChatCompletionChunk>) {
    chunks.push(chunk);
  }
  return {
    chunks,
    routed: response.headers.get("x-sovra-routed-model"),
    reason: response.headers.get("x-sovra-routing-reason") ?? "",
  };
}

const forwarded = (c: ChatCompletionChunk) => "service_tier" in c;

/** The tool calls the SDK assembles from the stream's deltas. */
function calls(chunks: ChatCompletionChunk[]) {
  const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
  for (const chunk of chunks) {
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
      const entry = byIndex.get(call.index) ?? { id: "", name: "", arguments: "" };
      entry.id ||= call.id ?? "";
      entry.name ||= call.function?.name ?? "";
      entry.arguments += call.function?.arguments ?? "";
      byIndex.set(call.index, entry);
    }
  }
  return [...byIndex.values()];
}

Deno.test("router — streams take the pass-through; its tool calls still pin the loop; answer and bill equal the re-encoded path's", async () => {
  await using h = await startRouterHarness();
  const policy = (threshold: string) =>
    h.admin(["routing", "create"], {
      org: h.org,
      id: "agent",
      pool: [SMALL.id, LARGE.id].join(","),
      threshold,
    });
  await policy("10");

  const fast = await streamed(h, {
    messages: [ASK],
    tools: TOOLS,
    stream_options: { include_usage: true },
  });
  // `reasoning.exclude` keeps the ordinary, re-encoded path (docs/performance.md).
  const ordinary = await streamed(h, {
    messages: [ASK],
    tools: TOOLS,
    stream_options: { include_usage: true },
    reasoning: { exclude: true },
  });
  assert.equal(fast.routed, LARGE.id);
  assert.equal(ordinary.routed, LARGE.id);
  assert.ok(fast.chunks.some(forwarded), "the router's stream forwarded upstream chunks");
  assert.ok(!ordinary.chunks.some(forwarded), "reasoning.exclude keeps the re-encoded path");
  for (const chunk of fast.chunks) assert.equal(chunk.model, LARGE.id, "the served catalog id");

  const made = calls(fast.chunks);
  assert.ok(made.length > 0 && made.every((c) => c.id.length > 0), "the answer made tool calls");
  const strip = (c: { name: string; arguments: string }) => ({ name: c.name, args: c.arguments });
  assert.deepEqual(made.map(strip), calls(ordinary.chunks).map(strip));
  const finish = (chunks: ChatCompletionChunk[]) =>
    chunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(Boolean);
  assert.deepEqual(finish(fast.chunks), ["tool_calls"]);
  assert.deepEqual(finish(ordinary.chunks), ["tool_calls"]);
  const usage = (chunks: ChatCompletionChunk[]) => chunks.at(-1)!.usage;
  assert.ok(usage(fast.chunks)!.completion_tokens > 0);
  assert.deepEqual(usage(fast.chunks), usage(ordinary.chunks));

  await h.flushed();
  const rows = await h.gateway.deps.store.listRequests(h.org, 2);
  assert.equal(rows.length, 2);
  for (
    const key of ["prompt_tokens", "completion_tokens", "cost_micro_eur", "served_model"] as const
  ) {
    assert.equal(rows[0]![key], rows[1]![key], key);
  }
  assert.equal(rows[0]!.estimated, false);

  // The dial moves: a fresh conversation would now go to the small model, but the continuation
  // of the pass-through answer's tool loop stays on the model that made the calls.
  await policy("1");
  const continued = await streamed(h, {
    tools: TOOLS,
    messages: [
      ASK,
      {
        role: "assistant",
        content: null,
        tool_calls: made.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      },
      ...made.map((c) => ({ role: "tool", tool_call_id: c.id, content: "sunny, 14:00" })),
    ],
  });
  assert.equal(continued.routed, LARGE.id);
  assert.match(continued.reason, /^pinned: tool-loop continuation/);
  assert.ok(
    continued.chunks.some(forwarded),
    "the continuation streams through the pass-through too",
  );
  const fresh = await streamed(h, { messages: [ASK] });
  assert.equal(fresh.routed, SMALL.id);
});
