/**
 * The routing page's live figures count what the model did: a request the organization's
 * policy refused before any provider (no provider on its row) and a request whose gateway died
 * before it ended (status 0, settled later from its admission record) say nothing of the
 * model's latency or errors.
 */
import assert from "node:assert/strict";
import { summarize } from "../../src/dashboard/areas/model_health.ts";
import type { RequestRecord } from "../../src/state/records.ts";

function row(status: number, latency: number, provider: string | null = "sim-a"): RequestRecord {
  return {
    id: `req_${status}_${latency}`,
    created: new Date().toISOString(),
    org: "org_a",
    key_id: "key_a",
    user: null,
    endpoint: "chat",
    requested_model: "acme/chat",
    served_model: provider === null ? null : "up",
    provider,
    status,
    latency_ms: latency,
    prompt_tokens: null,
    completion_tokens: null,
    total_tokens: null,
    audio_seconds: null,
    characters: null,
    cost_micro_eur: 0,
    estimated: false,
    stream: false,
    fallbacks: 0,
    cached_tokens: null,
    cache_write_tokens: null,
    cache_write_1h_tokens: null,
    cache_savings_micro_eur: 0,
  };
}

Deno.test("live model figures — policy refusals and unfinished (recovered) requests are not the model's", () => {
  const stats = summarize([
    row(200, 100),
    row(200, 300),
    row(502, 50),
    row(403, 1, null), // refused by the organization's policy: no provider was called
    row(0, 2), // its gateway died: recovered from the admission record, outcome unknown
  ]);
  assert.deepEqual(stats["acme/chat"], {
    requests: 3,
    errors: 1,
    errorRate: 1 / 3,
    medianLatencyMs: 100,
    p95LatencyMs: 300,
  });
});
