/**
 * Audit of chat rule 4 on streams: a failure the upstream reports before any content reached
 * the client (an error chunk as its first event, or a JSON error body on a 200) still falls
 * back to the standby route.
 */
import assert from "node:assert/strict";
import {
  chunk,
  dataEvents,
  type Json,
  readAll,
  scriptModel,
  sse,
  user,
  withScripted,
} from "../../helpers/scripted_upstream.ts";

const MODEL = "audit/chat";
const fallbackModel = scriptModel(MODEL, {
  routes: [
    { provider: "script", upstream_model: "bad" },
    { provider: "script", upstream_model: "good" },
  ],
});
const good = () =>
  sse([
    chunk([{
      index: 0,
      delta: { role: "assistant", content: "from standby" },
      finish_reason: "stop",
    }]),
    chunk([], { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }),
  ]);

async function streamText(h: { post(p: string, b: unknown): Promise<Response> }): Promise<string> {
  const res = await h.post("/v1/chat/completions", {
    model: MODEL,
    messages: [user("Hi")],
    stream: true,
  });
  assert.equal(res.status, 200);
  const { text, clean } = await readAll(res);
  assert.ok(clean, "the stream ends cleanly");
  return text;
}

const content = (text: string) =>
  dataEvents(text).filter((d) => d !== "[DONE]").map((d) => JSON.parse(d) as Json)
    .flatMap((c) => c.choices as Array<{ delta?: { content?: string } }>)
    .map((c) => c.delta?.content ?? "").join("");

Deno.test("POST /v1/chat/completions — stream: an error event as the upstream's first event falls back to the standby", () =>
  withScripted(
    (body) =>
      body.model === "bad"
        ? sse([{ error: { message: "overloaded", type: "server_error" } }], false)
        : good(),
    async (h, up) => {
      assert.equal(content(await streamText(h)), "from standby");
      assert.deepEqual(up.bodies.map((b) => b.model), ["bad", "good"]);
    },
    { models: [fallbackModel] },
  ));

Deno.test("POST /v1/chat/completions — stream: a 200 carrying a JSON body instead of SSE falls back to the standby", () =>
  withScripted(
    (body) => body.model === "bad" ? Response.json({ error: { message: "no capacity" } }) : good(),
    async (h, up) => {
      assert.equal(content(await streamText(h)), "from standby");
      assert.deepEqual(up.bodies.map((b) => b.model), ["bad", "good"]);
    },
    { models: [fallbackModel] },
  ));
