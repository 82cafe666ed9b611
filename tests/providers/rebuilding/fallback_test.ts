/**
 * Rule 4 across the platforms: an upstream 5xx / 529 / rejected credential on the primary route
 * is retried on the standby (Bedrock → Vertex and the reverse), before the first byte of a
 * stream; the metadata names the provider that served and counts one fallback, and usage and
 * cost come from the standby's counts. After the first byte an upstream failure is a dropped
 * connection and no fallback happens.
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import {
  BEDROCK_CLAUDE,
  expectedCost,
  platformModel,
  reportedUsage,
  routeOf,
  VERTEX_CLAUDE,
} from "../../helpers/platforms.ts";
import {
  lastRow,
  readToEnd,
  resetAll,
  sseData,
  user,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const MODELS = [
  platformModel("e2e/bedrock-down", [
    routeOf("bedrock-claude", "+fail-503"),
    routeOf("vertex-claude"),
  ]),
  platformModel("e2e/vertex-down", [
    routeOf("vertex-claude", "+fail-503"),
    routeOf("bedrock-claude"),
  ]),
  platformModel("e2e/vertex-overloaded", [
    routeOf("vertex-claude", "+fail-529"),
    { provider: "vertex-eu-b", upstream_model: VERTEX_CLAUDE },
  ]),
  platformModel("e2e/bedrock-throttled", [
    routeOf("bedrock-claude", "+fail-429"),
    routeOf("vertex-claude"),
  ]),
  platformModel("e2e/bedrock-badkey", [
    { provider: "aws-badkey", upstream_model: BEDROCK_CLAUDE },
    routeOf("vertex-claude"),
  ]),
  platformModel("e2e/bedrock-breaks", [
    routeOf("bedrock-claude", "+exception-after-2"),
    routeOf("vertex-claude"),
  ]),
  platformModel("e2e/vertex-breaks", [
    routeOf("vertex-claude", "+exception-after-4"),
    routeOf("bedrock-claude"),
  ]),
];

interface FallbackCase {
  model: string;
  served: "vertex-eu" | "vertex-eu-b" | "aws-eu";
}

const CASES: FallbackCase[] = [
  { model: "e2e/bedrock-down", served: "vertex-eu" },
  { model: "e2e/vertex-down", served: "aws-eu" },
  { model: "e2e/vertex-overloaded", served: "vertex-eu-b" },
  { model: "e2e/bedrock-throttled", served: "vertex-eu" },
  { model: "e2e/bedrock-badkey", served: "vertex-eu" },
];

Deno.test("POST /v1/chat/completions — fallback across the platforms and mid-stream failures", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    const servedUsage = (served: FallbackCase["served"]) => {
      const records = served === "aws-eu" ? p.bedrock.requests : p.vertex.requests;
      return reportedUsage(records.at(-1)?.usage);
    };

    for (const c of CASES) {
      await t.step(`${c.model} — non-stream served by the standby ${c.served}`, async () => {
        await resetAll(h, p);
        const { data, response } = await h.client.chat.completions
          .create({ model: c.model, messages: [user("Hello")] })
          .withResponse();
        assert.equal(response.status, 200);
        assert.equal(data.model, c.model);
        assert.ok((data.choices[0]?.message.content ?? "").length > 0);
        const used = servedUsage(c.served);
        assert.equal(data.usage?.prompt_tokens, used.prompt);
        assert.equal(data.usage?.completion_tokens, used.completion);
        const row = await lastRow(h);
        assert.equal(row.status, 200);
        assert.equal(row.provider, c.served);
        assert.equal(row.fallbacks, 1);
        assert.equal(row.prompt_tokens, used.prompt);
        assert.equal(row.completion_tokens, used.completion);
        assert.equal(row.cost_micro_eur, expectedCost(used.prompt, used.completion));
      });

      await t.step(`${c.model} — stream falls back before the first byte`, async () => {
        await resetAll(h, p);
        const stream = await h.client.chat.completions.create({
          model: c.model,
          messages: [user("Hello")],
          stream: true,
        });
        const chunks: ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        assert.ok(chunks.map((ch) => ch.choices[0]?.delta.content ?? "").join("").length > 0);
        const used = servedUsage(c.served);
        assert.equal(chunks.at(-1)?.usage?.prompt_tokens, used.prompt);
        const row = await lastRow(h);
        assert.equal(row.stream, true);
        assert.equal(row.provider, c.served);
        assert.equal(row.fallbacks, 1);
      });
    }

    for (
      const [model, standbyRecords] of [
        ["e2e/bedrock-breaks", () => p.vertex.requests],
        ["e2e/vertex-breaks", () => p.bedrock.requests],
      ] as const
    ) {
      await t.step(
        `${model} — upstream failure after the first byte drops the connection`,
        async () => {
          await resetAll(h, p);
          const res = await h.post("/v1/chat/completions", {
            model,
            messages: [user("Hello")],
            stream: true,
          });
          assert.equal(res.status, 200, "the stream had started");
          const { text, clean } = await readToEnd(res);
          assert.equal(clean, false, "dropped connection, not a clean end");
          assert.ok(!sseData(text).includes("[DONE]"), "no terminator");
          assert.ok(!text.includes('"error"'), "no error body in the stream");
          assert.equal(standbyRecords().length, 0, "no fallback after the first byte");
          const row = await lastRow(h);
          assert.equal(row.fallbacks, 0);
          assert.equal(row.stream, true);
        },
      );
    }
  });
});
