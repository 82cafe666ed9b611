/**
 * Audit of POST /v1/chat/completions against wire shapes real providers send (scripted
 * upstream): `n` > 1, usage inside the last content chunk (Mistral), a throttle with
 * `Retry-After`, tool messages with array content, an error chunk mid-stream.
 */
import assert from "node:assert/strict";
import {
  chunk,
  completion,
  dataEvents,
  isRecord,
  type Json,
  readAll,
  sse,
  user,
  withScripted,
} from "../../helpers/scripted_upstream.ts";

const MODEL = "audit/chat";
const USAGE = { prompt_tokens: 7, completion_tokens: 6, total_tokens: 13 };

const twoChoices = (body: Json) =>
  body.stream === true
    ? sse([
      chunk([{ index: 0, delta: { role: "assistant", content: "first" }, finish_reason: null }]),
      chunk([{ index: 1, delta: { role: "assistant", content: "second" }, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
      chunk([{ index: 1, delta: {}, finish_reason: "stop" }]),
      chunk([], { usage: USAGE }),
    ])
    : Response.json(completion([
      { index: 0, message: { role: "assistant", content: "first" }, finish_reason: "stop" },
      { index: 1, message: { role: "assistant", content: "second" }, finish_reason: "stop" },
    ], USAGE));

// `n` > 1 on an `openai`-dialect route: forwarded, and every choice reaches the client (billed
// by the usage that covers them all).
Deno.test("POST /v1/chat/completions — n: 2 answers two choices (non-stream)", () =>
  withScripted(twoChoices, async (h, up) => {
    const res = await h.post("/v1/chat/completions", {
      model: MODEL,
      messages: [user("Hi")],
      n: 2,
    });
    assert.equal(res.status, 200);
    const body = await res.json() as { choices: Array<{ index: number; message: Json }> };
    assert.equal(up.bodies[0]?.n, 2, "n is forwarded upstream");
    assert.deepEqual(body.choices.map((c) => c.index), [0, 1]);
    assert.deepEqual(body.choices.map((c) => c.message.content), ["first", "second"]);
    assert.equal(res.headers.get("x-sovra-dropped-params"), null);
  }));

Deno.test("POST /v1/chat/completions — n: 2 streams deltas of both choices", () =>
  withScripted(twoChoices, async (h) => {
    const res = await h.post("/v1/chat/completions", {
      model: MODEL,
      messages: [user("Hi")],
      n: 2,
      stream: true,
    });
    const { text } = await readAll(res);
    const byIndex = new Map<number, string>();
    for (const d of dataEvents(text)) {
      if (d === "[DONE]") continue;
      const chunk = JSON.parse(d) as {
        choices: Array<{ index: number; delta: { content?: string; role?: string } }>;
      };
      for (const c of chunk.choices) {
        byIndex.set(c.index, (byIndex.get(c.index) ?? "") + (c.delta.content ?? ""));
      }
    }
    assert.deepEqual([...byIndex.entries()].sort(), [[0, "first"], [1, "second"]]);
  }));

Deno.test("POST /v1/chat/completions — upstream 429 with Retry-After answers 429 upstream_rate_limited with Retry-After", () =>
  withScripted(
    () =>
      Response.json(
        {
          error: {
            message: "slow down, org org-123 key sk-upstream",
            type: "rate_limit",
            code: "x",
          },
        },
        { status: 429, headers: { "retry-after": "30" } },
      ),
    async (h) => {
      const res = await h.post("/v1/chat/completions", { model: MODEL, messages: [user("Hi")] });
      assert.equal(res.status, 429);
      const text = await res.text();
      const body = JSON.parse(text) as { error: Json };
      assert.equal(body.error.code, "upstream_rate_limited");
      assert.equal(typeof body.error.message, "string");
      assert.equal(typeof body.error.type, "string");
      assert.ok(!text.includes("sk-upstream"), "the provider's internals stay hidden");
      assert.equal(res.headers.get("retry-after"), "30", "the provider's Retry-After is passed on");
      assert.ok(Number(res.headers.get("retry-after")) >= 1);
    },
  ));

Deno.test("POST /v1/chat/completions — tool message with array content reaches the upstream as its text", () =>
  withScripted(
    () =>
      Response.json(completion([
        { index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" },
      ], USAGE)),
    async (h, up) => {
      const res = await h.post("/v1/chat/completions", {
        model: MODEL,
        messages: [
          user("Weather?"),
          {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "call_1",
              type: "function",
              function: { name: "weather", arguments: '{"city":"Graz"}' },
            }],
          },
          {
            role: "tool",
            tool_call_id: "call_1",
            content: [{ type: "text", text: "sunny, " }, { type: "text", text: "21 C" }],
          },
        ],
        tools: [{
          type: "function",
          function: { name: "weather", parameters: { type: "object" } },
        }],
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const messages = up.bodies[0]?.messages as Json[];
      const tool = messages.find((m) => m.role === "tool")!;
      assert.equal(tool.tool_call_id, "call_1");
      const content = tool.content;
      const text = typeof content === "string"
        ? content
        : (content as Json[]).map((p) => String(p.text)).join("");
      assert.equal(text, "sunny, 21 C");
    },
  ));

Deno.test("POST /v1/chat/completions — an error chunk after the first byte is a dropped connection, no error body", () =>
  withScripted(
    () =>
      sse([
        chunk([{ index: 0, delta: { role: "assistant", content: "Hel" }, finish_reason: null }]),
        { error: { message: "internal upstream trace id 42", type: "server_error" } },
      ], false),
    async (h) => {
      const res = await h.post("/v1/chat/completions", {
        model: MODEL,
        messages: [user("Hi")],
        stream: true,
      });
      assert.equal(res.status, 200);
      const { text, clean } = await readAll(res);
      assert.equal(clean, false, "the connection is dropped");
      assert.ok(!text.includes("[DONE]"));
      assert.ok(!text.includes("trace id"));
      assert.ok(
        !dataEvents(text).some((e) => isRecord(safeParse(e)) && "error" in (safeParse(e) as Json)),
      );
    },
  ));

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
