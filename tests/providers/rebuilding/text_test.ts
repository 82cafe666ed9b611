/**
 * Plain text through the rebuilding routes (Anthropic on Bedrock, Anthropic on Vertex, Nova on
 * Bedrock) with the official SDK: the answer carries the catalog id, a stream ends with the
 * usage chunk before `[DONE]`, and usage and cost come exactly from the upstream's counts.
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import {
  expectedCost,
  FAMILIES,
  type Family,
  platformModel,
  type Platforms,
  reportedUsage,
  routeOf,
} from "../../helpers/platforms.ts";
import {
  lastRow,
  readToEnd,
  resetAll,
  sseChunks,
  sseData,
  upstreamCalls,
  user,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const modelId = (family: Family) => `e2e/${family}`;
const MODELS = FAMILIES.map((f) => platformModel(modelId(f), [routeOf(f)]));

function upstreamUsage(p: Platforms, family: Family) {
  const record = family === "vertex-claude" ? p.vertex.requests.at(-1) : p.bedrock.requests.at(-1);
  assert.ok(record, "the upstream was called");
  return reportedUsage(record.usage);
}

Deno.test("POST /v1/chat/completions on rebuilding routes — text, stream, usage and cost", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    for (const family of FAMILIES) {
      const model = modelId(family);

      await t.step(`${family} — non-stream text with exact usage and cost`, async () => {
        await resetAll(h, p);
        const completion = await h.client.chat.completions.create({
          model,
          messages: [{ role: "system", content: "Be brief." }, user("Say hello")],
        });
        assert.equal(completion.model, model);
        assert.equal(completion.object, "chat.completion");
        const choice = completion.choices[0];
        assert.ok(choice);
        assert.equal(choice.finish_reason, "stop");
        assert.equal(choice.message.role, "assistant");
        assert.ok((choice.message.content ?? "").length > 0);
        assert.equal(upstreamCalls(h, p), 1);
        const used = upstreamUsage(p, family);
        assert.deepEqual(
          completion.usage && {
            p: completion.usage.prompt_tokens,
            c: completion.usage.completion_tokens,
            t: completion.usage.total_tokens,
          },
          { p: used.prompt, c: used.completion, t: used.prompt + used.completion },
        );
        const row = await lastRow(h);
        assert.equal(row.endpoint, "chat");
        assert.equal(row.status, 200);
        assert.equal(row.stream, false);
        assert.equal(row.requested_model, model);
        assert.equal(row.provider, routeOf(family).provider);
        assert.equal(row.fallbacks, 0);
        assert.equal(row.prompt_tokens, used.prompt);
        assert.equal(row.completion_tokens, used.completion);
        assert.equal(row.estimated, false);
        assert.equal(row.cost_micro_eur, expectedCost(used.prompt, used.completion));
      });

      await t.step(`${family} — SDK stream: text deltas, usage on the last chunk`, async () => {
        await resetAll(h, p);
        const stream = await h.client.chat.completions.create({
          model,
          messages: [user("Say hello")],
          stream: true,
        });
        const chunks: ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
        assert.ok(text.length > 0);
        assert.ok(chunks.every((c) => c.model === model), "every chunk names the catalog id");
        const finish = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((
          f,
        ) => f != null);
        assert.deepEqual(finish, ["stop"]);
        const used = upstreamUsage(p, family);
        const last = chunks.at(-1);
        assert.deepEqual(last?.usage && [last.usage.prompt_tokens, last.usage.completion_tokens], [
          used.prompt,
          used.completion,
        ]);
        assert.ok(chunks.slice(0, -1).every((c) => c.usage == null), "usage only on the last");
        const row = await lastRow(h);
        assert.equal(row.stream, true);
        assert.equal(row.status, 200);
        assert.equal(row.prompt_tokens, used.prompt);
        assert.equal(row.completion_tokens, used.completion);
        assert.equal(row.cost_micro_eur, expectedCost(used.prompt, used.completion));
      });

      await t.step(`${family} — raw stream: usage chunk immediately before [DONE]`, async () => {
        await resetAll(h, p);
        const res = await h.post("/v1/chat/completions", {
          model,
          messages: [user("Say hello")],
          stream: true,
        });
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
        const { text, clean } = await readToEnd(res);
        assert.ok(clean, "the stream ends cleanly");
        const data = sseData(text);
        assert.equal(data.at(-1), "[DONE]");
        const chunks = sseChunks(text);
        const usage = chunks.at(-1)?.usage as Record<string, number> | undefined;
        const used = upstreamUsage(p, family);
        assert.equal(usage?.prompt_tokens, used.prompt);
        assert.equal(usage?.completion_tokens, used.completion);
        assert.equal(usage?.total_tokens, used.prompt + used.completion);
      });
    }
  });
});
