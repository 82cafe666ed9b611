/**
 * Metric families (`src/telemetry/series.ts`) and `Telemetry`'s exposition, against the
 * Prometheus text format (a histogram's `_bucket` lines are cumulative, `le` is an inclusive
 * upper bound, `le="+Inf"` equals `_count`; an unlabelled metric is exposed before its first
 * observation) and the metrics table of docs/operations.md (names, labels, what is counted).
 */
import assert from "node:assert/strict";
import { GatewayMetrics } from "../../src/telemetry/prometheus.ts";
import { Telemetry } from "../../src/telemetry/telemetry.ts";
import { RecordSeriesCache } from "../../src/telemetry/record_series.ts";
import {
  CounterFamily,
  HistogramFamily,
  type MetricJson,
  SeriesCacheByPair,
} from "../../src/telemetry/series.ts";
import type { RequestRecord } from "../../src/state/records.ts";

function record(overrides: Partial<RequestRecord>): RequestRecord {
  return {
    id: "req_1",
    created: "2026-11-25T01:00:00.000Z",
    org: "org_1",
    key_id: "key_1",
    user: null,
    endpoint: "chat",
    requested_model: "acme/chat",
    served_model: "acme/chat",
    provider: "acme",
    status: 200,
    stream: false,
    latency_ms: 250,
    prompt_tokens: 12,
    completion_tokens: 30,
    total_tokens: 42,
    audio_seconds: null,
    characters: null,
    cost_micro_eur: 1_234,
    estimated: false,
    fallbacks: 0,
    ...overrides,
  } as RequestRecord;
}

/** The exposition's sample lines as `name{labels}` → value. */
function lines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

Deno.test("HistogramFamily — cumulative buckets with inclusive bounds, +Inf equal to _count, _sum", async () => {
  const family = new HistogramFamily({
    name: "test_seconds",
    help: "h",
    labelNames: ["route"],
    buckets: [1, 0.1, 10],
  });
  const series = family.series({ route: "a" });
  for (const v of [0.05, 0.1, 0.5, 1, 3, 10, 11]) series.observe(v);
  const json = family.json();
  assert.equal(json.type, "histogram");
  const byLe = json.values.filter((v) => v.metricName === "test_seconds_bucket")
    .map((v) => [v.labels.le, v.value]);
  assert.deepEqual(byLe, [[0.1, 2], [1, 4], [10, 6], ["+Inf", 7]]);
  const at = (name: string) => json.values.find((v) => v.metricName === name)?.value;
  assert.equal(at("test_seconds_count"), 7);
  assert.ok(Math.abs(at("test_seconds_sum")! - 25.65) < 1e-9);
  const text = await new Telemetry({ eventLoopProbeMs: 0 }).exposition();
  assert.match(text, /^# TYPE gen_ai_server_request_duration_seconds histogram$/m);
});

Deno.test("CounterFamily — one series per label set, listed from its first increment", () => {
  const family = new CounterFamily({ name: "test_total", help: "c", labelNames: ["a", "b"] });
  const ab = family.series({ a: "1", b: "2" });
  assert.equal(family.series({ b: "2", a: "1" }), ab, "label order does not make a new series");
  const untouched = family.series({ a: "x" });
  assert.deepEqual(family.json().values, [], "no series before its first increment");
  ab.inc();
  ab.inc(2);
  family.series({ a: "1" }).inc(0);
  assert.deepEqual(family.json().values, [
    { value: 3, labels: { a: "1", b: "2" } },
    { value: 0, labels: { a: "1" } },
  ]);
  assert.equal(untouched.value, 0);
  const unlabelled = new CounterFamily({ name: "test_plain_total", help: "c" });
  assert.deepEqual(unlabelled.json().values, [{ value: 0, labels: {} }], "listed at 0");
});

Deno.test("Telemetry — a settled request lands in the documented metrics with its labels", async () => {
  const t = new Telemetry({ eventLoopProbeMs: 0 });
  t.settled(record({}), undefined);
  t.settled(record({ latency_ms: 750, cost_micro_eur: 66 }), undefined);
  t.settled(
    record({ status: 502, served_model: null, provider: null, cost_micro_eur: 0 }),
    undefined,
  );
  t.refused("rate_limit");
  t.committed(3, 2);
  const got = lines(await t.exposition());
  const served = 'endpoint="chat",requested_model="acme/chat",status_class="2xx",' +
    'served_model="acme/chat",provider="acme"';
  assert.equal(got.get(`sovra_requests_total{${served}}`), 2);
  assert.equal(
    got.get('sovra_requests_total{endpoint="chat",requested_model="acme/chat",status_class="5xx"}'),
    1,
    "no model labels when no provider was reached",
  );
  const genAi = 'gen_ai_operation_name="chat",gen_ai_request_model="acme/chat",' +
    'gen_ai_response_model="acme/chat",gen_ai_provider_name="acme"';
  assert.equal(got.get(`gen_ai_server_request_duration_seconds_count{${genAi}}`), 2);
  assert.equal(got.get(`gen_ai_server_request_duration_seconds_sum{${genAi}}`), 1);
  assert.equal(got.get(`gen_ai_server_request_duration_seconds_bucket{le="0.32",${genAi}}`), 1);
  assert.equal(got.get(`gen_ai_server_request_duration_seconds_bucket{le="1.28",${genAi}}`), 2);
  assert.equal(
    got.get(
      'gen_ai_server_request_duration_seconds_count{gen_ai_operation_name="chat",' +
        'gen_ai_request_model="acme/chat",error_type="502"}',
    ),
    1,
  );
  const usage = 'gen_ai_operation_name="chat",gen_ai_provider_name="acme"';
  assert.equal(got.get(`gen_ai_client_token_usage_sum{${usage},gen_ai_token_type="input"}`), 24);
  assert.equal(got.get(`gen_ai_client_token_usage_sum{${usage},gen_ai_token_type="output"}`), 60);
  assert.equal(
    got.get(
      'sovra_billed_micro_eur_total{endpoint="chat",requested_model="acme/chat",provider="acme"}',
    ),
    1_300,
  );
  assert.equal(got.get('sovra_gate_refusals_total{reason="rate_limit"}'), 1);
  assert.equal(got.get("sovra_commit_batch_size_count"), 1);
  assert.equal(got.get("sovra_commit_duration_seconds_sum"), 0.002);
  assert.equal(got.get("sovra_event_loop_delay_seconds_count"), 0, "unlabelled: listed at 0");
  assert.equal(got.get("sovra_open_streams"), 0);
});

Deno.test("Telemetry — the JSON of several isolates sums in the exposition", async () => {
  const a = new Telemetry({ eventLoopProbeMs: 0 });
  const b = new Telemetry({ eventLoopProbeMs: 0 });
  a.settled(record({}), undefined);
  b.settled(record({}), undefined);
  b.settled(record({ latency_ms: 1_000 }), undefined);
  a.others = async () => [await b.metricsJson()];
  const got = lines(await a.exposition());
  const genAi = 'gen_ai_operation_name="chat",gen_ai_request_model="acme/chat",' +
    'gen_ai_response_model="acme/chat",gen_ai_provider_name="acme"';
  assert.equal(got.get(`gen_ai_server_request_duration_seconds_count{${genAi}}`), 3);
  assert.equal(got.get(`gen_ai_server_request_duration_seconds_sum{${genAi}}`), 1.5);
  const json = (await a.metricsJson()) as MetricJson[];
  assert.ok(json.every((m) => typeof m.name === "string" && Array.isArray(m.values)));
});

Deno.test("RecordSeriesCache — look-alike labels and a full cache still land in the right series", () => {
  const metrics = new GatewayMetrics();
  const cache = new RecordSeriesCache(metrics, 2);
  const base = { endpoint: "chat", status: 200, stream: false, provider: null } as const;
  // "m" + "null x" and "m null" + "x" would join to the same string; five tuples overflow a
  // cache of 2.
  const tuples = [
    { ...base, requested_model: "m", served_model: "null x" },
    { ...base, requested_model: "m null", served_model: "x" },
    { ...base, requested_model: "a", served_model: null },
    { ...base, requested_model: "b", served_model: null },
    { ...base, requested_model: "c", served_model: null },
  ];
  for (let round = 0; round < 3; round++) {
    for (const t of tuples) {
      cache.of(t).requests.inc();
      cache.of(t).duration.observe(0.5 + round);
    }
  }
  assert.equal(cache.size, 2, "the cache holds no more than its limit");
  assert.equal(cache.of(tuples[1]!), cache.of({ ...tuples[1]! }), "a kept tuple is found again");
  assert.notEqual(cache.of(tuples[0]!), cache.of(tuples[1]!));
  assert.notEqual(cache.of(tuples[4]!), cache.of(tuples[4]!), "past the limit: built per call");
  const requests = metrics.requests.json().values;
  assert.equal(requests.length, 5, "one series per tuple");
  for (const t of tuples) {
    const labels: Record<string, string> = {
      endpoint: "chat",
      requested_model: t.requested_model,
      status_class: "2xx",
    };
    if (t.served_model !== null) labels.served_model = t.served_model;
    assert.deepEqual(requests.find((v) => v.labels.requested_model === t.requested_model), {
      value: 3,
      labels,
    });
    assert.equal(cache.of(t).duration.count, 3);
    assert.equal(cache.of(t).duration.sum, 4.5);
  }
});

Deno.test("SeriesCacheByPair — finds by both keys and stops at its limit", () => {
  const cache = new SeriesCacheByPair<number>(2);
  assert.equal(cache.add("a", "b", 1), 1);
  assert.equal(cache.add("a b", "", 2), 2);
  assert.equal(cache.add("c", "d", 3), 3);
  assert.deepEqual(
    [cache.get("a", "b"), cache.get("a b", ""), cache.get("a", "b "), cache.get("c", "d")],
    [1, 2, undefined, undefined],
  );
  assert.equal(cache.size, 2);
});

Deno.test("series — an unknown label, a bad value and a negative counter are refused", () => {
  const m = new GatewayMetrics();
  assert.throws(() => m.overhead.series({ endpoint: "chat", model: "x" }), /model/);
  assert.throws(() => m.gateRefusals.series({ why: "x" }), /why/);
  const h = m.overhead.series({ endpoint: "chat", stream: "false" });
  assert.throws(() => h.observe(Number.NaN), TypeError);
  assert.throws(() => h.observe(Infinity), TypeError);
  const c = m.gateRefusals.series({ reason: "rate_limit" });
  assert.throws(() => c.inc(-1), /decrease/);
  assert.throws(() => c.inc(Infinity), TypeError);
  assert.throws(() =>
    new HistogramFamily({ name: "x", help: "h", labelNames: ["le"], buckets: [] })
  );
  assert.throws(() => new CounterFamily({ name: "bad name", help: "c" }), /name/);
});
