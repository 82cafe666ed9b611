/**
 * First byte as soon as the upstream's. OpenAI-dialect upstreams open a
 * stream with a chunk that only announces the role; a slow model sends its first token much
 * later. That chunk goes to the client at once (as the role chunk with empty content), so the
 * client's first byte is the upstream's, and from then on rule 4 applies: no fallback after
 * the first byte. An upstream that sends nothing still falls back (stream_failure_test.ts).
 */
import assert from "node:assert/strict";
import { chatModel } from "../../helpers/harness.ts";
import {
  deltaOf,
  readToEnd,
  sseChunks,
  upstreamModels,
  user,
  waitForRows,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const messages = [user("Tell me about the harbour")];

Deno.test("POST /v1/chat/completions — the upstream's role-only first chunk goes out before any token; no fallback after it", () =>
  withHarness(
    {
      // The role chunk, then silence until the idle cut: before the fix the client got
      // nothing from this route and the standby answered instead.
      models: [chatModel(MODEL, ["p+silent-after-1", "standby-ok"])],
      env: { SOVRA_STREAM_IDLE_MS: "300" },
    },
    async (h) => {
      const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
      assert.equal(res.status, 200);
      const read = await readToEnd(res);
      assert.equal(read.clean, false, "the silent upstream is cut after the first byte");
      const chunks = sseChunks(read.text);
      assert.equal(chunks.length, 1, read.text);
      assert.equal(chunks[0]!.model, MODEL);
      assert.deepEqual(deltaOf(chunks[0]!), { role: "assistant", content: "" });
      assert.deepEqual(upstreamModels(h), ["p+silent-after-1"], "no fallback after the first byte");
      const rows = await waitForRows(h);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.fallbacks, 0);
    },
  ));

Deno.test("POST /v1/chat/completions — a slow upstream's stream: role chunk first, then every token, the same text", () =>
  withHarness({ models: [chatModel(MODEL, "p+slow-30+chunks-3")] }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
    assert.equal(res.status, 200);
    const read = await readToEnd(res);
    assert.ok(read.clean);
    const chunks = sseChunks(read.text);
    assert.deepEqual(deltaOf(chunks[0]!), { role: "assistant", content: "" });
    const roles = chunks.filter((c) => deltaOf(c)?.role !== undefined);
    assert.equal(roles.length, 1, "the role is announced once");
    const text = chunks.map((c) => deltaOf(c)?.content ?? "").join("");
    assert.ok(typeof text === "string" && text.length > 0);
    assert.equal(
      chunks.filter((c) => typeof deltaOf(c)?.content === "string" && deltaOf(c)?.content !== "")
        .length,
      3,
    );
  }));
