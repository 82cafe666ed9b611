/**
 * The recovery record a request's admission carries (billed from it if the process
 * dies before the settle), through the HTTP stack: the estimate from the request alone, status
 * 0, `estimated` and `recovered`, the same id and `created` as the settled record, and nothing
 * a plain request does not have (no routing policy, guardrail note or policy refusal).
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { requestRows } from "../helpers/api.ts";
import type { RequestRecord } from "../../src/state/records.ts";

Deno.test("admission — a chat request's recovery record is its estimated record, flagged recovered", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const admitted: RequestRecord[] = [];
  const countRequest = h.store.countRequest.bind(h.store);
  h.store.countRequest = (keyId, minute, onSent, admission) => {
    if (admission) admitted.push(structuredClone(admission.record));
    return countRequest(keyId, minute, onSent, admission);
  };
  const messages = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Say hello in five words, please." },
  ];
  const res = await h.post("/v1/chat/completions", {
    model: "acme/chat",
    messages,
    user: "end-user-7",
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const id = res.headers.get("x-sovra-request-id");
  const [settled] = await requestRows(h, 1);

  assert.equal(admitted.length, 1);
  const record = admitted[0]!;
  const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
  const promptTokens = 3 + 3 * messages.length + Math.ceil(chars / 4);
  assert.ok(record.latency_ms >= 0);
  assert.deepEqual(record, {
    id,
    created: settled!.created,
    org: h.org,
    key_id: h.keyId,
    user: "end-user-7",
    endpoint: "chat",
    requested_model: "acme/chat",
    served_model: "acme/chat",
    provider: "sim-a",
    status: 0,
    latency_ms: record.latency_ms,
    prompt_tokens: promptTokens,
    completion_tokens: null,
    total_tokens: promptTokens,
    audio_seconds: null,
    characters: null,
    // 1 000 000 micro-EUR per million prompt tokens: one per token.
    cost_micro_eur: promptTokens,
    estimated: true,
    stream: false,
    fallbacks: 0,
    cached_tokens: null,
    cache_write_tokens: null,
    cache_write_1h_tokens: null,
    cache_savings_micro_eur: 0,
    recovered: true,
  });
  // Stored as written: `recovered` last, as the settled record's fields come first.
  assert.equal(Object.keys(record).at(-1), "recovered");
  assert.equal(settled!.id, id);
});
