/**
 * Billing when the provider reports no token counts ("Where a provider reports no token
 * counts, the cost is estimated"): the request still succeeds, the metadata carries estimated
 * counts and `estimated: true`; with reported usage the metadata keeps the upstream's exact
 * numbers and `estimated: false`.
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { chatModel } from "../../helpers/harness.ts";
import { askSimulator, onlyRow, requestRows, user, withHarness } from "../../helpers/chat.ts";

const MODEL = "acme/quiet";
const REPORTING = "acme/reporting";
const models = [chatModel(MODEL, "up+no-usage"), chatModel(REPORTING, "up")];
const messages = [
  { role: "system" as const, content: "You answer questions about the sea." },
  user("What was the weather in the harbour this morning, and did the boats leave?"),
];

Deno.test("POST /v1/chat/completions — non-stream without upstream usage is billed on estimated counts", () =>
  withHarness({ models }, async (h) => {
    const completion = await h.client.chat.completions.create({ model: MODEL, messages });
    assert.ok((completion.choices[0]?.message.content ?? "").length > 0);
    const row = onlyRow(await requestRows(h));
    assert.equal(row.status, 200);
    assert.equal(row.estimated, true);
    assert.ok((row.prompt_tokens ?? 0) > 0, "estimated prompt tokens");
    assert.ok((row.completion_tokens ?? 0) > 0, "estimated completion tokens");
    assert.ok(Number.isInteger(row.prompt_tokens) && Number.isInteger(row.completion_tokens));
    assert.equal(row.cost_micro_eur, (row.prompt_tokens ?? 0) + 3 * (row.completion_tokens ?? 0));
  }));

Deno.test("POST /v1/chat/completions — stream without upstream usage is billed on estimated counts", () =>
  withHarness({ models }, async (h) => {
    const stream = await h.client.chat.completions.create({ model: MODEL, messages, stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    assert.ok(text.length > 0, "the stream still succeeds");
    const row = onlyRow(await requestRows(h));
    assert.equal(row.status, 200);
    assert.equal(row.stream, true);
    assert.equal(row.estimated, true);
    assert.ok((row.prompt_tokens ?? 0) > 0);
    assert.ok((row.completion_tokens ?? 0) > 0);
    assert.ok(row.cost_micro_eur > 0);
  }));

Deno.test("POST /v1/chat/completions — reported usage is kept exactly and not marked estimated", () =>
  withHarness({ models }, async (h) => {
    const upstream = await askSimulator(h, { model: "up", messages });
    const expected = upstream.usage as { prompt_tokens: number; completion_tokens: number };
    h.sim.reset();
    await h.client.chat.completions.create({ model: REPORTING, messages });
    const stream = await h.client.chat.completions.create({
      model: REPORTING,
      messages,
      stream: true,
    });
    for await (const _ of stream) { /* drain */ }
    const rows = await requestRows(h);
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.estimated, false, `stream ${row.stream}`);
      assert.equal(row.prompt_tokens, expected.prompt_tokens);
      assert.equal(row.completion_tokens, expected.completion_tokens);
      assert.equal(row.cost_micro_eur, expected.prompt_tokens + 3 * expected.completion_tokens);
    }
  }));
