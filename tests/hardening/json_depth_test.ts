/**
 * Attack: tool `parameters` nested 10,000 levels deep. Refused with 400
 * `invalid_request` naming the field before any upstream call, streamed or not, on both chat
 * endpoints; an ordinary nesting depth still passes.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { withHarness } from "../helpers/chat.ts";

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) {
    schema = { type: "object", properties: { a: schema } };
  }
  return schema;
}

Deno.test("attack — tool parameters nested 10,000 levels are refused before any upstream call", () =>
  withHarness({ models: [chatModel("acme/chat", "up")] }, async (h) => {
    const parameters = nested(10_000);
    for (const stream of [false, true]) {
      const responses = await h.post("/v1/responses", {
        model: "acme/chat",
        input: "hi",
        stream,
        tools: [{ type: "function", name: "f", parameters }],
      });
      const chat = await h.post("/v1/chat/completions", {
        model: "acme/chat",
        messages: [{ role: "user", content: "hi" }],
        stream,
        tools: [{ type: "function", function: { name: "f", parameters } }],
      });
      for (const res of [responses, chat]) {
        const text = await res.text();
        assert.equal(res.status, 400, text.slice(0, 300));
        const body = JSON.parse(text);
        assert.equal(body.error.code, "invalid_request");
        assert.match(body.error.message, /tools\[0\]/);
      }
    }
    assert.equal(h.sim.requests.length, 0, "no upstream call");
    const ok = await h.post("/v1/chat/completions", {
      model: "acme/chat",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "f", parameters: nested(10) } }],
    });
    await ok.body?.cancel();
    assert.equal(ok.status, 200, "ordinary nesting passes");
  }));
