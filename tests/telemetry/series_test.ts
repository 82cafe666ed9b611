/**
 * The request path records metrics through cached series (`src/telemetry/series.ts`), not
 * through prom-client's `observe(labels, v)` / `inc(labels, v)`. Differential test: the same
 * observations go through `Telemetry` and through prom-client's own calls with the labels the
 * gateway built before the series existed (the code below, as it was), and the two registries'
 * text exposition must be byte-identical — and their JSON (what the workers' aggregation reads)
 * equal — at every scrape, including after a `resetMetrics()`.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { GatewayMetrics } from "../../src/telemetry/prometheus.ts";
import { type RequestTrace, Telemetry } from "../../src/telemetry/telemetry.ts";
import { RecordSeriesCache } from "../../src/telemetry/record_series.ts";
import { CounterSeries, HistogramSeries, SeriesCacheByPair } from "../../src/telemetry/series.ts";
import { type AttemptRoute, failureKind } from "../../src/telemetry/tracing.ts";
import type { RequestRecord } from "../../src/state/records.ts";

type Labels = Record<string, string>;

// ---- The old path: prom-client's own calls, labels built as the gateway built them. ----

function oldStatusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : "other";
}

function oldOperationName(endpoint: RequestRecord["endpoint"]): string {
  switch (endpoint) {
    case "chat":
    case "responses":
      return "chat";
    case "embeddings":
      return "embeddings";
    case "transcriptions":
      return "transcription";
    case "speech":
      return "speech";
  }
}

function oldSettled(m: GatewayMetrics, record: RequestRecord, trace: RequestTrace | undefined) {
  const model = record.requested_model;
  const provider = record.provider ?? "none";
  const requests: Labels = {
    endpoint: record.endpoint,
    requested_model: model,
    status_class: oldStatusClass(record.status),
  };
  const op = oldOperationName(record.endpoint);
  const genAi: Labels = { gen_ai_operation_name: op, gen_ai_request_model: model };
  if (record.served_model !== null) {
    requests.served_model = genAi.gen_ai_response_model = record.served_model;
  }
  if (record.provider !== null) requests.provider = genAi.gen_ai_provider_name = provider;
  if (record.status >= 400) genAi.error_type = String(record.status);
  m.requests.inc(requests);
  const totalMs = trace?.totalMs ?? record.latency_ms;
  m.requestDuration.observe(genAi, totalMs / 1000);
  if (trace?.firstEventMs !== undefined) {
    m.timeToFirstToken.observe(genAi, trace.firstEventMs / 1000);
  }
  if (trace && record.status < 400) {
    const until = record.stream ? trace.firstEventMs : trace.totalMs;
    if (until !== undefined) {
      m.overhead.observe(
        { endpoint: record.endpoint, stream: String(record.stream) },
        Math.max(0, until - trace.upstreamMs) / 1000,
      );
    }
  }
  const usage = { gen_ai_operation_name: op, gen_ai_provider_name: provider };
  if (record.prompt_tokens !== null) {
    m.tokens.observe({ ...usage, gen_ai_token_type: "input" }, record.prompt_tokens);
  }
  if (record.completion_tokens !== null) {
    m.tokens.observe({ ...usage, gen_ai_token_type: "output" }, record.completion_tokens);
  }
  const billed = { endpoint: record.endpoint, requested_model: model, provider };
  if (record.audio_seconds !== null) m.audioSeconds.inc(billed, record.audio_seconds);
  if (record.characters !== null) m.characters.inc(billed, record.characters);
  if (record.cost_micro_eur > 0) m.billed.inc(billed, record.cost_micro_eur);
  if (record.fallbacks > 0) {
    m.fallbacks.inc({ endpoint: record.endpoint, requested_model: model }, record.fallbacks);
  }
}

function oldAttempt(m: GatewayMetrics, route: AttemptRoute, ms: number, failure: unknown) {
  const kind = failure === undefined ? "none" : failureKind(failure);
  const labels: Labels = {
    gen_ai_provider_name: route.providerId,
    gen_ai_request_model: route.route.upstream_model,
  };
  if (kind !== "none") labels.error_type = kind;
  m.upstreamDuration.observe(labels, ms / 1000);
  if (failure !== undefined) m.upstreamFailures.inc({ provider: route.providerId, kind });
}

// ---- The observations. ----

// Model ids with a space or named "null" make different tuples compose the same cache key.
const MODELS = ["acme/chat", "acme/small", "m", "m null", "null x", "x", "null", ""];
const PROVIDERS = ["sim", "p2", "null", "none"];
const ENDPOINTS = ["chat", "responses", "embeddings", "transcriptions", "speech"] as const;
const STATUSES = [200, 201, 400, 402, 403, 404, 429, 499, 500, 502, 503, 99, 600, 700];

const ms = fc.double({ min: 0, max: 200_000, noNaN: true });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

const recordArb: fc.Arbitrary<RequestRecord> = fc.record({
  endpoint: fc.constantFrom(...ENDPOINTS),
  requested_model: fc.constantFrom(...MODELS),
  served_model: maybe(fc.constantFrom(...MODELS)),
  provider: maybe(fc.constantFrom(...PROVIDERS)),
  status: fc.constantFrom(...STATUSES),
  stream: fc.boolean(),
  latency_ms: fc.nat(100_000),
  prompt_tokens: maybe(fc.nat(5_000_000)),
  completion_tokens: maybe(fc.nat(5_000_000)),
  audio_seconds: maybe(fc.double({ min: 0, max: 10_000, noNaN: true })),
  characters: maybe(fc.nat(100_000)),
  cost_micro_eur: fc.oneof(fc.constant(0), fc.nat(10_000_000)),
  fallbacks: fc.nat(3),
}).map((r) =>
  ({
    id: "req_1",
    created: "2026-11-25T01:00:00.000Z",
    org: "org_1",
    key_id: "key_1",
    user: null,
    total_tokens: null,
    estimated: false,
    ...r,
  }) as unknown as RequestRecord
);

const traceArb = fc.option(
  fc.record({
    endpoint: fc.constantFrom(...ENDPOINTS),
    upstreamMs: ms,
    firstEventMs: fc.option(ms, { nil: undefined }),
    totalMs: fc.option(ms, { nil: undefined }),
  }),
  { nil: undefined },
);

function traceOf(t: {
  endpoint: string;
  upstreamMs: number;
  firstEventMs: number | undefined;
  totalMs: number | undefined;
}): RequestTrace {
  return { start: 0, settling: true, span: undefined, ...t };
}

class Failure extends Error {
  constructor(readonly kind: string) {
    super(kind);
  }
}

const opArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ op: fc.constant("settled"), record: recordArb, trace: traceArb }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("attempt"),
      provider: fc.constantFrom(...PROVIDERS),
      model: fc.constantFrom(...MODELS),
      // ok: success; plain: an Error without a kind; else an upstream failure of that kind.
      failure: fc.constantFrom("ok", "plain", "timeout", "http_5xx", "none", "connect"),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("unsettled"),
      endpoint: fc.constantFrom(...ENDPOINTS, "models", "other"),
      status: fc.constantFrom(...STATUSES),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("refused"),
      reason: fc.constantFrom("rate_limit" as const, "insufficient_credits" as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("committed"), size: fc.nat(600), ms }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "scrape" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "reset" as const }) },
);

async function same(fresh: Telemetry, old: GatewayMetrics, when: string) {
  assert.equal(await fresh.metrics.registry.metrics(), await old.registry.metrics(), when);
  assert.deepEqual(
    await fresh.metrics.registry.getMetricsAsJSON(),
    await old.registry.getMetricsAsJSON(),
    when,
  );
}

Deno.test("telemetry series — /metrics text is byte-identical to prom-client's own calls", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
      const fresh = new Telemetry({ eventLoopProbeMs: 0 });
      const old = new GatewayMetrics();
      try {
        for (const [i, o] of ops.entries()) {
          switch (o.op) {
            case "settled": {
              const trace = o.trace && traceOf(o.trace);
              fresh.settled(o.record, trace);
              oldSettled(old, o.record, trace && { ...trace });
              break;
            }
            case "attempt": {
              const route = {
                providerId: o.provider,
                dialect: "openai",
                route: { upstream_model: o.model },
              };
              const trace = traceOf({
                endpoint: "chat",
                upstreamMs: 0,
                firstEventMs: undefined,
                totalMs: undefined,
              });
              const failure = o.failure === "ok"
                ? undefined
                : o.failure === "plain"
                ? new Error("x")
                : new Failure(o.failure);
              const run = () =>
                failure === undefined ? Promise.resolve(1) : Promise.reject(failure);
              await fresh.attempt(trace, route, 0, run).catch(() => {});
              // The attempt's duration, as it measured it: the trace's upstream time.
              oldAttempt(old, route, trace.upstreamMs, failure);
              break;
            }
            case "unsettled":
              fresh.endWithoutSettle(
                traceOf({
                  endpoint: o.endpoint,
                  upstreamMs: 0,
                  firstEventMs: undefined,
                  totalMs: undefined,
                }),
                o.status,
              );
              old.requests.inc({ endpoint: o.endpoint, status_class: oldStatusClass(o.status) });
              break;
            case "refused":
              fresh.refused(o.reason);
              old.gateRefusals.inc({ reason: o.reason });
              break;
            case "committed":
              fresh.committed(o.size, o.ms);
              old.commitBatchSize.observe(o.size);
              old.commitDuration.observe(o.ms / 1000);
              break;
            case "scrape":
              await same(fresh, old, `scrape after op ${i}`);
              break;
            case "reset":
              fresh.metrics.registry.resetMetrics();
              old.registry.resetMetrics();
              break;
          }
        }
        await same(fresh, old, "at the end");
      } finally {
        fresh.close();
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("telemetry series — look-alike labels and a full cache still land in the right series", async () => {
  const fresh = new GatewayMetrics();
  const old = new GatewayMetrics();
  const cache = new RecordSeriesCache(fresh, 2);
  const base = {
    endpoint: "chat",
    status: 200,
    stream: false,
    provider: null,
  } as const;
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
      old.requests.inc({
        endpoint: "chat",
        requested_model: t.requested_model,
        status_class: "2xx",
        ...(t.served_model === null ? {} : { served_model: t.served_model }),
      });
      old.requestDuration.observe({
        gen_ai_operation_name: "chat",
        gen_ai_request_model: t.requested_model,
        ...(t.served_model === null ? {} : { gen_ai_response_model: t.served_model }),
      }, 0.5 + round);
    }
  }
  assert.equal(cache.size, 2, "the cache holds no more than its limit");
  assert.equal(cache.of(tuples[1]!), cache.of({ ...tuples[1]! }), "a kept tuple is found again");
  assert.notEqual(cache.of(tuples[0]!), cache.of(tuples[1]!));
  assert.notEqual(cache.of(tuples[4]!), cache.of(tuples[4]!), "past the limit: built per call");
  assert.equal(await fresh.registry.metrics(), await old.registry.metrics());
  assert.match(
    await fresh.registry.metrics(),
    /requested_model="m null",status_class="2xx",served_model="x"\} 3/,
  );
});

Deno.test("telemetry series — SeriesCacheByPair finds by both keys and stops at its limit", () => {
  const cache = new SeriesCacheByPair<number>(2);
  assert.equal(cache.add("a", "b", 1), 1);
  assert.equal(cache.add("a b", "", 2), 2);
  assert.equal(cache.add("c", "d", 3), 3);
  assert.deepEqual([
    cache.get("a", "b"),
    cache.get("a b", ""),
    cache.get("a", "b "),
    cache.get("c", "d"),
  ], [
    1,
    2,
    undefined,
    undefined,
  ]);
  assert.equal(cache.size, 2);
});

Deno.test("telemetry series — prom-client's checks stay: unknown label, bad value, negative counter", () => {
  const m = new GatewayMetrics();
  assert.throws(() => new HistogramSeries(m.overhead, { endpoint: "chat", model: "x" }), /model/);
  assert.throws(() => new CounterSeries(m.gateRefusals, { why: "x" }), /why/);
  const h = new HistogramSeries(m.overhead, { endpoint: "chat", stream: "false" });
  assert.throws(() => h.observe(Number.NaN), TypeError);
  assert.throws(() => h.observe(Infinity), TypeError);
  const c = new CounterSeries(m.gateRefusals, { reason: "rate_limit" });
  assert.throws(() => c.inc(-1), /decrease/);
  assert.throws(() => c.inc(Infinity), TypeError);
});
