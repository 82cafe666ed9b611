import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";

Deno.test("chat completions — non-stream answer through the official SDK", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const completion = await h.client.chat.completions.create({
    model: "acme/chat",
    messages: [{ role: "user", content: "Hello" }],
  });
  assert.equal(completion.model, "acme/chat");
  assert.ok(completion.choices[0]?.message.content);
  assert.ok(completion.usage && completion.usage.prompt_tokens > 0);
  await h.flushed();
  const rows = await h.store.listRequests(h.org, 10);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.served_model, "acme/chat");
});

Deno.test("chat completions — stream with usage on the last chunk", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const stream = await h.client.chat.completions.create({
    model: "acme/chat",
    messages: [{ role: "user", content: "Hello" }],
    stream: true,
  });
  let text = "";
  let usage;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? "";
    if (chunk.usage) usage = chunk.usage;
  }
  assert.ok(text.length > 0);
  assert.ok(usage && usage.completion_tokens > 0);
});

Deno.test("GET /v1/models/{id} — the SDK's models.retrieve finds an active model; others are 404", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/chat", "sim-chat"),
      chatModel("acme/old", "sim-old", { state: "disabled" }),
    ],
  });
  const model = await h.client.models.retrieve("acme/chat");
  assert.equal(model.id, "acme/chat");
  assert.equal((model as unknown as { kind: string }).kind, "chat");
  for (const id of ["acme/old", "acme/none"]) {
    const res = await fetch(`${h.url}/v1/models/${id}`, {
      headers: { authorization: `Bearer ${h.key}` },
    });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, "model_not_found");
  }
});
