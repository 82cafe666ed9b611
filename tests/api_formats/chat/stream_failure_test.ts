/**
 * Chat streams that do not end normally (spec: States "Chat stream", rules 3–5, Limits):
 * an upstream failure after the first byte is a dropped connection (no error body, no
 * fallback), a client disconnect still bills what was generated, and an idle upstream is cut
 * (injected here as SOVRA_STREAM_IDLE_MS=300 instead of 90 s).
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { chatModel } from "../../helpers/harness.ts";
import {
  askSimulator,
  assertErrorShape,
  isRecord,
  onlyRow,
  readToEnd,
  requestRows,
  sseChunks,
  sseData,
  upstreamModels,
  user,
  waitForRows,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const messages = [user("Tell me about the harbour")];
const IDLE = { SOVRA_STREAM_IDLE_MS: "300" };

/** Asserts a raw stream broke off after some chunks: no terminator, no error payload. */
function assertDropped(read: { text: string; clean: boolean }): void {
  assert.equal(read.clean, false, "the connection must break, not end cleanly");
  const data = sseData(read.text);
  assert.ok(!data.includes("[DONE]"), "a dropped stream has no [DONE]");
  const chunks = sseChunks(read.text);
  assert.ok(chunks.length >= 1, "some chunks arrive before the break");
  for (const chunk of chunks) assert.ok(!("error" in chunk), "no error body after the first byte");
}

Deno.test("POST /v1/chat/completions — upstream drop mid-stream drops the client connection", () =>
  withHarness({ models: [chatModel(MODEL, ["p+drop-after-3", "standby-ok"])] }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
    assert.equal(res.status, 200);
    assertDropped(await readToEnd(res));
    assert.deepEqual(upstreamModels(h), ["p+drop-after-3"], "no fallback after the first byte");
    const row = onlyRow(await waitForRows(h));
    assert.equal(row.stream, true);
    assert.equal(row.fallbacks, 0);
    assert.equal(row.provider, "sim-a");
    assert.ok((row.completion_tokens ?? 0) > 0, "the generated part is billed");
    assert.ok((row.prompt_tokens ?? 0) > 0);
    assert.equal(row.estimated, true, "the upstream reported no usage before the drop");
    assert.ok(row.cost_micro_eur > 0);
  }));

Deno.test("POST /v1/chat/completions — upstream drop mid-stream makes the SDK iteration throw", () =>
  withHarness({ models: [chatModel(MODEL, ["p+drop-after-3", "standby-ok"])] }, async (h) => {
    const stream = await h.client.chat.completions.create({ model: MODEL, messages, stream: true });
    const chunks: ChatCompletionChunk[] = [];
    await assert.rejects(async () => {
      for await (const chunk of stream) chunks.push(chunk);
    });
    assert.ok(chunks.length >= 1);
    assert.ok(chunks.every((c) => c.usage == null), "no usage chunk on a dropped stream");
    assert.deepEqual(upstreamModels(h), ["p+drop-after-3"]);
    await waitForRows(h);
  }));

Deno.test("POST /v1/chat/completions — a client disconnect mid-stream bills the tokens generated so far", () =>
  withHarness({ models: [chatModel(MODEL, "p+slow-50+chunks-40")] }, async (h) => {
    const full = await askSimulator(h, { model: "p+slow-50+chunks-40", messages });
    const fullCompletion = (full.usage as { completion_tokens: number }).completion_tokens;
    h.sim.reset();
    const abort = new AbortController();
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages, stream: true }),
      signal: abort.signal,
    });
    assert.equal(res.status, 200);
    assert.ok(res.body);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (sseData(text).filter((d) => d !== "[DONE]").length < 3) {
      const { done, value } = await reader.read();
      assert.ok(!done, "the stream ended before three chunks");
      text += decoder.decode(value, { stream: true });
    }
    abort.abort();
    await reader.cancel().catch(() => {});
    const row = onlyRow(await waitForRows(h));
    assert.equal(row.stream, true);
    assert.ok((row.completion_tokens ?? 0) > 0, "generated tokens are billed");
    assert.ok(row.cost_micro_eur > 0);
    assert.ok(
      (row.completion_tokens ?? 0) < fullCompletion,
      `billed ${row.completion_tokens} of ${fullCompletion}: the upstream was not stopped`,
    );
    assert.equal(row.estimated, true, "no usage was reported before the disconnect");
  }));

Deno.test("POST /v1/chat/completions — an upstream silent after the first byte is cut as a dropped connection", () =>
  withHarness(
    { models: [chatModel(MODEL, ["p+silent-after-2", "standby-ok"])], env: IDLE },
    async (h) => {
      const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
      assert.equal(res.status, 200);
      const read = await readToEnd(res);
      assertDropped(read);
      assert.ok(sseChunks(read.text).length <= 2, "only what the upstream sent arrives");
      assert.deepEqual(upstreamModels(h), ["p+silent-after-2"], "no fallback after the first byte");
      const row = onlyRow(await waitForRows(h));
      assert.equal(row.fallbacks, 0);
      assert.ok((row.completion_tokens ?? 0) > 0, "what was generated before the cut is billed");
      assert.equal(row.estimated, true);
    },
  ));

Deno.test("POST /v1/chat/completions — an upstream silent before the first byte falls back to the standby", () =>
  withHarness(
    { models: [chatModel(MODEL, ["p+silent", "standby-ok"])], env: IDLE },
    async (h) => {
      const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
      assert.equal(res.status, 200);
      const read = await readToEnd(res);
      assert.ok(read.clean);
      assert.ok(read.text.endsWith("data: [DONE]\n\n"));
      const last = sseChunks(read.text).at(-1);
      assert.ok(last && isRecord(last.usage));
      assert.deepEqual(upstreamModels(h), ["p+silent", "standby-ok"]);
      const row = onlyRow(await requestRows(h));
      assert.equal(row.fallbacks, 1);
      assert.equal(row.provider, "sim-b");
    },
  ));

Deno.test("POST /v1/chat/completions — an upstream silent before the first byte without standby answers 502", () =>
  withHarness({ models: [chatModel(MODEL, "p+silent")], env: IDLE }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
    const text = await res.text();
    assert.equal(res.status, 502, text);
    assertErrorShape(JSON.parse(text), "upstream_error");
  }));

Deno.test("POST /v1/chat/completions — a stream longer than the idle limit but never idle that long completes", () =>
  // Gaps of 250 ms under a 1 s idle limit, 1.25 s in all: a loaded host may stall a gap by
  // most of a second before the stream would be cut.
  withHarness({
    models: [chatModel(MODEL, "p+slow-250+chunks-5")],
    env: { SOVRA_STREAM_IDLE_MS: "1000" },
  }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
    assert.equal(res.status, 200);
    const read = await readToEnd(res);
    assert.ok(read.clean, "no overall deadline: the stream must not be cut");
    assert.ok(read.text.endsWith("data: [DONE]\n\n"));
    const row = onlyRow(await requestRows(h));
    assert.equal(row.estimated, false);
  }));
