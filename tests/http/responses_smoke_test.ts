import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";

Deno.test("responses — create and stream through the official SDK on an openai-dialect route", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const response = await h.client.responses.create({ model: "acme/chat", input: "Hello" });
  assert.equal(response.model, "acme/chat");
  assert.ok(response.output_text.length > 0);
  assert.ok(response.usage && response.usage.output_tokens > 0);
  const final = await h.client.responses.stream({ model: "acme/chat", input: "Hello" })
    .finalResponse();
  assert.equal(final.status, "completed");
  assert.equal(final.output_text, response.output_text);
  await h.flushed();
  const rows = await h.store.listRequests(h.org, 10);
  assert.deepEqual(rows.map((r) => [r.endpoint, r.stream]), [["responses", true], [
    "responses",
    false,
  ]]);
});
