/**
 * POST /v1/chat/completions, the plain paths: the non-streamed Chat completion object and the
 * chat stream's framing (spec: "Chat completion (response object)", rule 2, "Chat stream").
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { chatModel } from "../../helpers/harness.ts";
import {
  askSimulator,
  assertInt,
  isRecord,
  onlyRow,
  readToEnd,
  requestRows,
  SIM_KEY,
  sseChunks,
  sseData,
  upstreamChatBodies,
  user,
  withHarness,
} from "../../helpers/chat.ts";

const UPSTREAM = "hidden-upstream-name-7";
const MODEL = "acme/chat";
const models = [chatModel(MODEL, UPSTREAM)];
const messages = [user("Hello there, how are you today?")];

Deno.test("POST /v1/chat/completions — non-stream answer names the catalog id and integer usage", () =>
  withHarness({ models }, async (h) => {
    const { data, response } = await h.client.chat.completions
      .create({ model: MODEL, messages })
      .withResponse();
    assert.equal(data.model, MODEL);
    assert.equal(data.choices[0]?.message.role, "assistant");
    assert.ok((data.choices[0]?.message.content ?? "").length > 0);
    assert.equal(data.choices[0]?.index, 0);
    assert.equal(data.choices[0]?.finish_reason, "stop");
    assert.equal(typeof data.id, "string");
    assertInt(data.created, "created");
    const usage = data.usage;
    assert.ok(usage);
    assertInt(usage.prompt_tokens, "prompt_tokens");
    assertInt(usage.completion_tokens, "completion_tokens");
    assertInt(usage.total_tokens, "total_tokens");
    assert.ok(usage.prompt_tokens > 0 && usage.completion_tokens > 0);
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    // The upstream model name never reaches the client, in the body or in a header.
    const raw = await (await h.post("/v1/chat/completions", { model: MODEL, messages })).text();
    assert.ok(!raw.includes(UPSTREAM), "the upstream model name leaked into the body");
    for (const [name, value] of response.headers) {
      assert.ok(!value.includes(UPSTREAM), `the upstream model name leaked into header ${name}`);
    }
  }));

Deno.test("POST /v1/chat/completions — non-stream metadata carries the upstream usage and its cost", () =>
  withHarness({ models }, async (h) => {
    const upstream = await askSimulator(h, { model: UPSTREAM, messages });
    h.sim.reset();
    const expected = upstream.usage as { prompt_tokens: number; completion_tokens: number };
    const completion = await h.client.chat.completions.create({ model: MODEL, messages });
    assert.equal(completion.usage?.prompt_tokens, expected.prompt_tokens);
    assert.equal(completion.usage?.completion_tokens, expected.completion_tokens);
    const row = onlyRow(await requestRows(h));
    assert.equal(row.requested_model, MODEL);
    assert.ok(row.served_model !== null && row.served_model.length > 0);
    assert.equal(row.provider, "sim-a");
    assert.equal(row.status, 200);
    assert.equal(row.stream, false);
    assert.equal(row.fallbacks, 0);
    assert.equal(row.estimated, false);
    assert.equal(row.prompt_tokens, expected.prompt_tokens);
    assert.equal(row.completion_tokens, expected.completion_tokens);
    assert.equal(row.total_tokens, expected.prompt_tokens + expected.completion_tokens);
    // Prices: 1 EUR per million prompt tokens, 3 EUR per million completion tokens, i.e.
    // 1 and 3 micro-EUR per token.
    assert.equal(row.cost_micro_eur, expected.prompt_tokens + 3 * expected.completion_tokens);
  }));

Deno.test("POST /v1/chat/completions — stream is data-only SSE ending in [DONE] with usage last", () =>
  withHarness({ models }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    const { text, clean } = await readToEnd(res);
    assert.ok(clean, "the stream must end cleanly");
    assert.ok(text.endsWith("data: [DONE]\n\n"), "the stream must end with data: [DONE]");
    assert.ok(text.split("\n\n").at(-1) === "", "nothing may follow the terminator");
    const data = sseData(text);
    assert.equal(data.filter((d) => d === "[DONE]").length, 1);
    const chunks = sseChunks(text);
    assert.ok(chunks.length >= 2);
    for (const chunk of chunks) assert.equal(chunk.model, MODEL);
    assert.ok(!text.includes(UPSTREAM), "the upstream model name leaked into the stream");
    const last = chunks.at(-1);
    assert.ok(last && isRecord(last.usage), "the last chunk before [DONE] must carry usage");
    const usage = last.usage;
    assertInt(usage.prompt_tokens, "prompt_tokens");
    assertInt(usage.completion_tokens, "completion_tokens");
    assertInt(usage.total_tokens, "total_tokens");
    const content = chunks
      .map((c) => {
        const choices = Array.isArray(c.choices) ? c.choices : [];
        const first: unknown = choices[0];
        return isRecord(first) && isRecord(first.delta) ? first.delta.content ?? "" : "";
      })
      .join("");
    assert.ok(String(content).length > 0, "the stream must carry delta.content");
    // The service asked the upstream for usage although the client did not.
    const [sent] = upstreamChatBodies(h);
    assert.equal(sent?.stream, true);
    assert.ok(isRecord(sent?.stream_options));
    assert.equal(sent.stream_options.include_usage, true);
    const row = onlyRow(await requestRows(h));
    assert.equal(row.stream, true);
    assert.equal(row.status, 200);
    assert.equal(row.estimated, false);
    assert.equal(row.prompt_tokens, usage.prompt_tokens);
    assert.equal(row.completion_tokens, usage.completion_tokens);
    assert.ok(row.cost_micro_eur > 0);
  }));

Deno.test("POST /v1/chat/completions — SDK stream chunks name the catalog id and end with usage", () =>
  withHarness({ models }, async (h) => {
    const stream = await h.client.chat.completions.create({
      model: MODEL,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.ok(chunks.length >= 2);
    for (const chunk of chunks) {
      assert.equal(chunk.model, MODEL);
      assert.equal(chunk.object, "chat.completion.chunk");
    }
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    assert.ok(text.length > 0);
    const finish = chunks.map((c) => c.choices[0]?.finish_reason).filter((f) => f != null);
    assert.deepEqual(finish, ["stop"]);
    assert.ok(chunks.at(-1)?.usage, "the last chunk must carry usage");
    assert.equal(chunks.filter((c) => c.usage != null).length, 1, "usage arrives once");
  }));

Deno.test("POST /v1/chat/completions — the upstream is asked for usage even when the client opts out", () =>
  withHarness({ models }, async (h) => {
    const res = await h.post("/v1/chat/completions", {
      model: MODEL,
      messages,
      stream: true,
      stream_options: { include_usage: false },
    });
    assert.equal(res.status, 200);
    const { text, clean } = await readToEnd(res);
    assert.ok(clean && text.endsWith("data: [DONE]\n\n"));
    const [sent] = upstreamChatBodies(h);
    assert.ok(sent && isRecord(sent.stream_options));
    assert.equal(sent.stream_options.include_usage, true, "billing needs the upstream usage");
    const row = onlyRow(await requestRows(h));
    assert.equal(row.estimated, false);
    assert.ok((row.completion_tokens ?? 0) > 0);
  }));

Deno.test("POST /v1/chat/completions — the upstream gets the service's credential, never the client's key", () =>
  withHarness({ models }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const [sent] = h.sim.requests;
    assert.ok(sent);
    assert.equal(sent.headers.authorization, `Bearer ${SIM_KEY}`);
    for (const [name, value] of Object.entries(sent.headers)) {
      assert.ok(!value.includes(h.key), `the client's key reached the upstream in ${name}`);
    }
    assert.ok(!JSON.stringify(sent.body).includes(h.key));
  }));
