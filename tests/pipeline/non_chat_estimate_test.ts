/**
 * `callNonChat` (src/pipeline/non_chat_call.ts): a usage estimate that fails after the provider
 * answered still settles the request — the row is written without token counts — instead of
 * leaving a served call unbilled and unrecorded (review item 7).
 */
import assert from "node:assert/strict";
import { startScriptedUpstream } from "../helpers/scripted_upstream.ts";
import { startHarness } from "../helpers/harness.ts";
import { callNonChat } from "../../src/pipeline/non_chat_call.ts";
import { parseEmbeddingsRequest } from "../../src/api_formats/embeddings/request_schema.ts";

const MODEL = "audit/embed";

Deno.test("callNonChat — a failed usage estimate still writes the request's row", async () => {
  await using up = startScriptedUpstream(() =>
    Response.json({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.1] }],
      model: "up-embed",
    })
  );
  await using h = await startHarness({
    models: [{
      id: MODEL,
      kind: "embedding",
      pricing: { prompt_micro_eur_per_million: 1_000_000 },
      routes: [{ provider: "script", upstream_model: "up-embed" }],
    }],
    providers: { script: { dialect: "openai", base_url: up.url, api_key_env: "SIM_KEY" } },
  });
  const deps = h.gateway.deps;
  const request = parseEmbeddingsRequest({ model: MODEL, input: "hello" }).upstream;
  const ctx = {
    deps,
    model: deps.catalog.current.requireModel(MODEL, "embedding"),
    caller: { requestId: "req_estimate_fails", startedAt: Date.now(), org: h.org, keyId: h.keyId },
    endpoint: "embeddings" as const,
    clientSignal: new AbortController().signal,
    user: undefined,
  };
  const served = await callNonChat(
    ctx,
    request,
    (adapter, call) => adapter.embeddings!(request, call),
    () => Promise.reject(new Error("tokenizer unavailable")),
  );
  assert.equal(served.route.providerId, "script");
  await h.flushed();
  const rows = await h.store.listRequests(h.org, 10);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.id, "req_estimate_fails");
  assert.equal(rows[0]?.status, 200);
  assert.equal(rows[0]?.prompt_tokens, null);
});
