/**
 * Edges of rebuilding routes: an upstream that reports no usage is billed on an estimate;
 * a client leaving mid-stream is still billed; an upstream that goes silent after the first
 * byte is cut (chat: dropped connection; responses: `response.failed`), with the idle limit
 * lowered through the gateway's environment; `max_tokens` / `max_output_tokens` reach the
 * upstream, and Anthropic models get the catalog's default when the client sends none.
 */
import assert from "node:assert/strict";
import { platformModel, routeOf } from "../../helpers/platforms.ts";
import { validateResponsesStream } from "../../helpers/responses_stream.ts";
import {
  lastRow,
  readToEnd,
  resetAll,
  sseChunks,
  sseData,
  user,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const MODELS = [
  platformModel("e2e/bedrock-no-usage", [routeOf("bedrock-claude", "+no-usage")]),
  platformModel("e2e/vertex-no-usage", [routeOf("vertex-claude", "+no-usage")]),
  platformModel("e2e/nova-no-usage", [routeOf("bedrock-nova", "+no-usage")]),
  platformModel("e2e/bedrock-slow", [routeOf("bedrock-claude", "+slow-40")]),
  platformModel("e2e/vertex-slow", [routeOf("vertex-claude", "+slow-40")]),
  platformModel("e2e/bedrock-silent", [routeOf("bedrock-claude", "+silent-after-3")]),
  platformModel("e2e/vertex-silent", [routeOf("vertex-claude", "+silent-after-4")]),
  platformModel("e2e/bedrock", [routeOf("bedrock-claude")]),
  platformModel("e2e/vertex", [routeOf("vertex-claude")]),
  platformModel("e2e/nova", [routeOf("bedrock-nova")]),
  platformModel("e2e/openai", [{ provider: "sim-a", upstream_model: "sim-chat" }]),
];

Deno.test("rebuilding routes — estimates, disconnects, idle cut-off and max tokens", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    for (const model of ["e2e/bedrock-no-usage", "e2e/vertex-no-usage", "e2e/nova-no-usage"]) {
      for (const stream of [false, true]) {
        await t.step(
          `${model}${stream ? " (stream)" : ""} — no upstream usage: estimated, billed`,
          async () => {
            await resetAll(h, p);
            const res = await h.post("/v1/chat/completions", {
              model,
              messages: [user("Say hello")],
              stream,
            });
            assert.equal(res.status, 200);
            const { text, clean } = await readToEnd(res);
            assert.ok(clean);
            if (stream) {
              assert.equal(sseData(text).at(-1), "[DONE]");
              assert.ok(sseChunks(text).length > 0);
            }
            const row = await lastRow(h);
            assert.equal(row.status, 200);
            assert.equal(row.estimated, true, "usage estimated");
            assert.ok(row.cost_micro_eur > 0, "billed on the estimate");
          },
        );
      }
    }

    for (const model of ["e2e/bedrock-slow", "e2e/vertex-slow"]) {
      await t.step(
        `${model} — the client leaves mid-stream: tokens so far are billed`,
        async () => {
          await resetAll(h, p);
          const res = await h.post("/v1/chat/completions", {
            model,
            messages: [user("Say hello")],
            stream: true,
          });
          assert.equal(res.status, 200);
          const reader = res.body!.getReader();
          const decoder = new TextDecoder();
          let text = "";
          while (!/"content":"[^"]+"/.test(text)) {
            const { done, value } = await reader.read();
            assert.ok(!done, "content arrived before the end");
            text += decoder.decode(value, { stream: true });
          }
          await reader.cancel();
          const row = await lastRow(h);
          assert.equal(row.stream, true);
          assert.ok(row.cost_micro_eur > 0, "the tokens generated so far are billed");
        },
      );
    }

    for (const model of ["e2e/bedrock-silent", "e2e/vertex-silent"]) {
      await t.step(
        `${model} — chat: silent upstream after the first byte is cut (dropped)`,
        async () => {
          await resetAll(h, p);
          const res = await h.post("/v1/chat/completions", {
            model,
            messages: [user("Say hello")],
            stream: true,
          });
          assert.equal(res.status, 200);
          const { text, clean } = await readToEnd(res);
          assert.equal(clean, false, "dropped connection");
          assert.ok(!sseData(text).includes("[DONE]"));
          assert.equal((await lastRow(h)).stream, true);
        },
      );

      await t.step(`${model} — responses: silent upstream ends with response.failed`, async () => {
        await resetAll(h, p);
        const res = await h.post("/v1/responses", { model, input: "Say hello", stream: true });
        assert.equal(res.status, 200);
        const { text, clean } = await readToEnd(res);
        assert.ok(clean, "not a dropped connection");
        assert.equal(validateResponsesStream(text).terminal, "response.failed");
      });
    }

    await t.step(
      "chat — Anthropic models get the catalog default max_tokens; a client value wins",
      async () => {
        await resetAll(h, p);
        for (const model of ["e2e/bedrock", "e2e/vertex"]) {
          await h.client.chat.completions.create({ model, messages: [user("Hi")] });
          await h.client.chat.completions.create({
            model,
            messages: [user("Hi")],
            max_tokens: 123,
          });
        }
        const bedrock = p.bedrock.requests.map((r) =>
          (r.body.inferenceConfig as { maxTokens?: number } | undefined)?.maxTokens
        );
        const vertex = p.vertex.requests.map((r) => r.body.max_tokens);
        assert.deepEqual(bedrock, [2048, 123]);
        assert.deepEqual(vertex, [2048, 123]);
      },
    );

    await t.step(
      "responses — max_output_tokens reaches every upstream as its max tokens",
      async () => {
        await resetAll(h, p);
        for (const model of ["e2e/bedrock", "e2e/vertex", "e2e/nova", "e2e/openai"]) {
          const response = await h.client.responses.create({
            model,
            input: "Hi",
            max_output_tokens: 77,
          });
          assert.ok(response.output_text.length > 0);
        }
        const bedrock = p.bedrock.requests.map((r) =>
          (r.body.inferenceConfig as { maxTokens?: number } | undefined)?.maxTokens
        );
        assert.deepEqual(bedrock, [77, 77]);
        assert.deepEqual(p.vertex.requests.map((r) => r.body.max_tokens), [77]);
        const openai = h.sim.requests.filter((r) => r.path.endsWith("/chat/completions"))
          .map((r) => r.body as Record<string, unknown>);
        assert.equal(openai.length, 1);
        assert.equal(openai[0]?.max_completion_tokens ?? openai[0]?.max_tokens, 77);
      },
    );
  }, { SOVRA_STREAM_IDLE_MS: "300" });
});
