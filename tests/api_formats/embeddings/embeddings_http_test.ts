/** POST /v1/embeddings over real HTTP, written from the spec (gateway-api.md). */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../../helpers/harness.ts";
import { embeddingOf } from "../../../scripts/simulator/openai/mod.ts";
import { ceilDiv, EMBED_PRICE, embeddingModel, errorOf, onlyRow } from "../../helpers/non_chat.ts";

const EMBED = embeddingModel("acme/embed", "sim-embed");

function assertVector(actual: readonly number[], expected: Float32Array) {
  assert.equal(actual.length, expected.length);
  actual.forEach((v, i) => assert.equal(v, expected[i]));
}

Deno.test("embeddings — SDK default (base64 asked, decoded) gives the upstream float vector", async () => {
  await using h = await startHarness({ models: [EMBED] });
  const result = await h.client.embeddings.create({ model: "acme/embed", input: "hi" });
  assert.equal(result.model, "acme/embed");
  assert.equal(result.data.length, 1);
  assertVector(result.data[0]!.embedding, embeddingOf("hi", 8));
  // The SDK asked for base64; the gateway forwarded that choice unchanged.
  const sent = h.sim.requests[0]?.body as Record<string, unknown>;
  assert.equal(sent.encoding_format, "base64");
  assert.equal(sent.model, "sim-embed");
});

Deno.test("embeddings — encoding_format float returns plain float arrays", async () => {
  await using h = await startHarness({ models: [EMBED] });
  const response = await h.post("/v1/embeddings", {
    model: "acme/embed",
    input: "hi",
    encoding_format: "float",
  });
  assert.equal(response.status, 200);
  const body = await response.json() as { model: string; data: { embedding: number[] }[] };
  assert.equal(body.model, "acme/embed");
  assert.ok(Array.isArray(body.data[0]?.embedding));
  assertVector(body.data[0]!.embedding, embeddingOf("hi", 8));
  const viaSdk = await h.client.embeddings.create({
    model: "acme/embed",
    input: "hi",
    encoding_format: "float",
  });
  assertVector(viaSdk.data[0]!.embedding, embeddingOf("hi", 8));
});

Deno.test("embeddings — array-of-strings input gives one vector per item, in order", async () => {
  await using h = await startHarness({ models: [EMBED] });
  const result = await h.client.embeddings.create({
    model: "acme/embed",
    input: ["first text", "second one here"],
  });
  assert.deepEqual(result.data.map((d) => d.index), [0, 1]);
  assertVector(result.data[0]!.embedding, embeddingOf("first text", 8));
  assertVector(result.data[1]!.embedding, embeddingOf("second one here", 8));
  const row = await onlyRow(h);
  assert.equal(row.prompt_tokens, 5);
});

Deno.test("embeddings — dimensions is forwarded to the provider unchanged", async () => {
  await using h = await startHarness({ models: [EMBED] });
  const result = await h.client.embeddings.create({
    model: "acme/embed",
    input: "hi",
    dimensions: 16,
    encoding_format: "float",
  });
  const sent = h.sim.requests[0]?.body as Record<string, unknown>;
  assert.equal(sent.dimensions, 16);
  assert.equal(sent.encoding_format, "float");
  assert.equal(sent.input, "hi");
  assertVector(result.data[0]!.embedding, embeddingOf("hi", 16));
});

Deno.test("embeddings — stream true is refused with 400 code stream before any upstream call", async () => {
  await using h = await startHarness({ models: [EMBED] });
  const response = await h.post("/v1/embeddings", {
    model: "acme/embed",
    input: "hi",
    stream: true,
  });
  assert.equal(response.status, 400);
  assert.equal((await errorOf(response)).code, "stream");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("embeddings — a chat model is rejected, and an embedding model on chat too", async () => {
  await using h = await startHarness({ models: [EMBED, chatModel("acme/chat", "sim-chat")] });
  const wrong = await h.post("/v1/embeddings", { model: "acme/chat", input: "hi" });
  assert.equal(wrong.status, 400);
  assert.equal((await errorOf(wrong)).code, "model_kind_mismatch");
  const onChat = await h.post("/v1/chat/completions", {
    model: "acme/embed",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(onChat.status, 400);
  await errorOf(onChat);
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("embeddings — billing records the reported prompt tokens and the exact cost", async () => {
  await using h = await startHarness({ models: [EMBED] });
  const result = await h.client.embeddings.create({
    model: "acme/embed",
    input: "one two three",
    user: "end-user-7",
  });
  assert.equal(result.usage.prompt_tokens, 3);
  const row = await onlyRow(h);
  assert.equal(row.endpoint, "embeddings");
  assert.equal(row.status, 200);
  assert.equal(row.requested_model, "acme/embed");
  assert.equal(row.served_model, "acme/embed");
  assert.equal(row.user, "end-user-7");
  assert.equal(row.prompt_tokens, 3);
  assert.equal(row.estimated, false);
  // 3 × 2.5 micro-EUR = 7.5 → 8
  assert.equal(row.cost_micro_eur, ceilDiv(3n * BigInt(EMBED_PRICE), 1_000_000n));
  assert.equal(row.cost_micro_eur, 8);
  const org = await h.store.getOrg(h.org);
  assert.equal(org?.spent_micro_eur, 8);
});

Deno.test("embeddings — without upstream usage the tokens are estimated and billed", async () => {
  await using h = await startHarness({
    models: [embeddingModel("acme/embed", "sim-embed+no-usage")],
  });
  const response = await h.post("/v1/embeddings", {
    model: "acme/embed",
    input: "a fairly long sentence to embed without any usage",
  });
  assert.equal(response.status, 200);
  const row = await onlyRow(h);
  assert.equal(row.estimated, true);
  assert.ok(row.prompt_tokens !== null && row.prompt_tokens > 0);
  assert.equal(
    row.cost_micro_eur,
    ceilDiv(BigInt(row.prompt_tokens) * BigInt(EMBED_PRICE), 1_000_000n),
  );
  assert.ok(row.cost_micro_eur > 0);
});

Deno.test("embeddings — a failing primary (503) falls back to the standby route", async () => {
  await using h = await startHarness({
    models: [embeddingModel("acme/embed", ["sim-embed+fail-503", "sim-embed-standby"])],
  });
  const result = await h.client.embeddings.create({
    model: "acme/embed",
    input: "hi",
    encoding_format: "float",
  });
  assert.equal(result.model, "acme/embed");
  assertVector(result.data[0]!.embedding, embeddingOf("hi", 8));
  const models = h.sim.requests.map((r) => (r.body as { model?: string }).model);
  assert.equal(models.at(-1), "sim-embed-standby");
  assert.ok(models.includes("sim-embed+fail-503"));
  const row = await onlyRow(h);
  assert.equal(row.status, 200);
  assert.equal(row.served_model, "acme/embed");
  assert.equal(row.provider, "sim-b");
  assert.ok(row.fallbacks >= 1);
});
