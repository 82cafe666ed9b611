/**
 * The telemetry seam: the few calls the request path makes (request start and end, each
 * upstream attempt, the settle, each group commit) and nothing else. `createTelemetry` wires
 * them to Prometheus metrics (`prometheus.ts`) and, when Deno's OpenTelemetry is on, to spans
 * (`tracing.ts`). Only identifiers and numbers are recorded: never a prompt, a completion, a
 * key id or an end-user id.
 */
import type { RequestRecord } from "../state/records.ts";
import { AggregatorRegistry } from "prom-client";
import { GatewayMetrics } from "./prometheus.ts";
import {
  type CounterSeries,
  type HistogramSeries,
  SeriesCache,
  SeriesCacheByPair,
} from "./series.ts";
import { RecordSeriesCache, statusClass } from "./record_series.ts";
import { type AttemptRoute, failureKind, type RequestSpan, Tracing } from "./tracing.ts";
import { EventLoopProbe } from "./event_loop_probe.ts";
import { BILLED_ENDPOINTS } from "../billed_endpoints.ts";

/** Per-request timing, carried in the request state: a few numbers and, when tracing, a span. */
export interface RequestTrace {
  /** `performance.now()` when the request reached the gate. */
  readonly start: number;
  /** The endpoint label (a fixed set). */
  readonly endpoint: string;
  /** Milliseconds spent in upstream attempts (for a stream: up to its first event). */
  upstreamMs: number;
  /** Milliseconds from `start` to the first streamed event. */
  firstEventMs: number | undefined;
  /** Set when the settle was called: the request's metrics come from its record. */
  settling: boolean;
  /** Milliseconds from `start` to the settle call. */
  totalMs: number | undefined;
  span: RequestSpan | undefined;
}

export type RefusalReason =
  | "rate_limit"
  | "insufficient_credits"
  | "key_budget_exceeded"
  | "organization_suspended";

export interface TelemetryOptions {
  /** Record spans through `@opentelemetry/api` (Deno's built-in OpenTelemetry). */
  tracing?: boolean;
  /** Milliseconds between two event-loop probes; 0 turns the probe off. */
  eventLoopProbeMs?: number;
}

/** A Hono route path's endpoint label: the billed endpoints' names, and the unbilled ones. */
const ENDPOINTS: Record<string, string> = {
  ...Object.fromEntries(Object.entries(BILLED_ENDPOINTS).map(([name, e]) => [e.path, name])),
  "/v1/models": "models",
  "/v1/models/:id{.+}": "models",
  "/openapi.json": "openapi",
};

/** The endpoint label of a Hono route path; anything unknown is `other` (bounded). */
export function endpointOf(routePath: string): string {
  return ENDPOINTS[routePath] ?? "other";
}

export class Telemetry {
  readonly metrics = new GatewayMetrics();
  readonly #tracing: Tracing | undefined;
  readonly #probe: EventLoopProbe | undefined;
  #openStreams = 0;
  // The series the request path records into, each asked of its family once (`series.ts`): no
  // label check or key per call. The caches are bounded; their keys are the labels' values.
  readonly #records = new RecordSeriesCache(this.metrics);
  readonly #attempts = new SeriesCacheByPair<AttemptSeries>(4096);
  readonly #unsettled = new SeriesCacheByPair<CounterSeries>(256);
  readonly #refusals = new SeriesCache<CounterSeries>(16);
  readonly #commitBatchSize = this.metrics.commitBatchSize.series();
  readonly #commitDuration = this.metrics.commitDuration.series();

  constructor(options: TelemetryOptions = {}) {
    this.#tracing = options.tracing ? new Tracing() : undefined;
    const probeMs = options.eventLoopProbeMs ?? 100;
    if (probeMs > 0) {
      const delay = this.metrics.eventLoopDelay.series();
      this.#probe = new EventLoopProbe(probeMs, (s) => delay.observe(s));
    }
    this.metrics.openStreams.collect = () => this.#openStreams;
  }

  get tracing(): boolean {
    return this.#tracing !== undefined;
  }

  /** The request reached the gate. */
  beginRequest(endpoint: string): RequestTrace {
    return {
      start: performance.now(),
      endpoint,
      upstreamMs: 0,
      firstEventMs: undefined,
      settling: false,
      totalMs: undefined,
      span: this.#tracing?.startRequest(endpoint),
    };
  }

  /** Runs `fn` inside the request's span (so attempt spans and fetch spans nest under it). */
  within<T>(trace: RequestTrace, fn: () => Promise<T>): Promise<T> {
    return trace.span ? trace.span.within(fn) : fn();
  }

  /**
   * A request that ended without a settle (refused or failed before any provider, or not
   * billed): counted by endpoint and status class only.
   */
  endWithoutSettle(trace: RequestTrace, status: number): void {
    const endpoint = trace.endpoint;
    const status_class = statusClass(status);
    (this.#unsettled.get(endpoint, status_class) ??
      this.#unsettled.add(
        endpoint,
        status_class,
        this.metrics.requests.series({ endpoint, status_class }),
      ))
      .inc();
    trace.span?.end(status);
  }

  /** The gate refused the request (a 429 of the key's rate limit, a 402, a suspended org's 403). */
  refused(reason: RefusalReason): void {
    (this.#refusals.get(reason) ??
      this.#refusals.add(reason, this.metrics.gateRefusals.series({ reason }))).inc();
  }

  /** One upstream attempt; `index` is its fallback index (0 = primary). */
  async attempt<T>(
    trace: RequestTrace | undefined,
    route: AttemptRoute,
    index: number,
    run: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const span = this.#tracing?.startAttempt(trace?.span, route, index);
    let failure: unknown;
    try {
      return await (span ? span.within(run) : run());
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const ms = performance.now() - started;
      if (trace) trace.upstreamMs += ms;
      const series = this.#attemptSeries(route.providerId, route.route.upstream_model);
      if (failure === undefined) series.succeeded.observe(ms / 1000);
      else series.failed(failureKind(failure), ms / 1000);
      span?.end(failure);
    }
  }

  /** A stream answered its first event: it is open until `streamClosed`. */
  streamOpened(trace: RequestTrace | undefined): void {
    this.#openStreams++;
    if (trace) trace.firstEventMs = performance.now() - trace.start;
  }

  streamClosed(): void {
    this.#openStreams--;
  }

  /** The settle was called (synchronously at the request's end). */
  settling(trace: RequestTrace | undefined): void {
    if (!trace || trace.settling) return;
    trace.settling = true;
    trace.totalMs = performance.now() - trace.start;
  }

  /** The settle's record is built: the request's own metrics. */
  settled(record: RequestRecord, trace: RequestTrace | undefined): void {
    const s = this.#records.of(record);
    s.requests.inc();
    const totalMs = trace?.totalMs ?? record.latency_ms;
    s.duration.observe(totalMs / 1000);
    if (trace?.firstEventMs !== undefined) s.firstToken.observe(trace.firstEventMs / 1000);
    if (trace && record.status < 400) {
      // Overhead = the gateway's own time: total (or, for a stream, time to the first event)
      // minus the time spent waiting on upstream attempts.
      const until = record.stream ? trace.firstEventMs : trace.totalMs;
      if (until !== undefined) s.overhead.observe(Math.max(0, until - trace.upstreamMs) / 1000);
    }
    if (record.prompt_tokens !== null) s.inputTokens.observe(record.prompt_tokens);
    if (record.completion_tokens !== null) s.outputTokens.observe(record.completion_tokens);
    if (record.audio_seconds !== null) s.audioSeconds.inc(record.audio_seconds);
    if (record.characters !== null) s.characters.inc(record.characters);
    if (record.cost_micro_eur > 0) s.billed.inc(record.cost_micro_eur);
    if (record.fallbacks > 0) s.fallbacks.inc(record.fallbacks);
    trace?.span?.settled(record);
  }

  /** Wraps the settle's store write in a span (when tracing). */
  settleSpan<T>(trace: RequestTrace | undefined, write: () => Promise<T>): Promise<T> {
    return this.#tracing && trace?.span ? this.#tracing.settle(trace.span, write) : write();
  }

  /** One group commit landed (or failed). */
  committed(batchSize: number, ms: number): void {
    this.#commitBatchSize.observe(batchSize);
    this.#commitDuration.observe(ms / 1000);
  }

  /** The transcription slots the app created: their use is read at each scrape. */
  observeSlots(slots: { readonly active: number; readonly waiting: number }): void {
    this.metrics.slotsInUse.collect = () => slots.active;
    this.metrics.slotsWaiting.collect = () => slots.waiting;
  }

  /** Store failures in the gate (the request was let through): read at each scrape. */
  observeFailOpen(read: () => number): void {
    this.metrics.failOpen.collect = read;
  }

  /**
   * The other `SOVRA_WORKERS` isolates' metrics (`metricsJson` of each), set by the primary
   * isolate so one scrape covers the whole process.
   */
  others: (() => Promise<unknown[][]>) | undefined;

  /** This isolate's metrics as prom-client's JSON (what the primary isolate aggregates). */
  metricsJson(): Promise<unknown[]> {
    return this.metrics.json();
  }

  /**
   * The Prometheus text exposition, rendered by prom-client from the JSON: this isolate's,
   * summed with the other isolates' (counters, histogram buckets and gauges add up:
   * prom-client's cluster aggregation).
   */
  async exposition(): Promise<string> {
    const all = [await this.metricsJson(), ...(this.others ? await this.others() : [])];
    return AggregatorRegistry.aggregate(all as Parameters<typeof AggregatorRegistry.aggregate>[0])
      .metrics();
  }

  get contentType(): string {
    return this.metrics.contentType;
  }

  close(): void {
    this.#probe?.stop();
  }

  #attemptSeries(providerId: string, upstreamModel: string): AttemptSeries {
    return this.#attempts.get(providerId, upstreamModel) ??
      this.#attempts.add(
        providerId,
        upstreamModel,
        new AttemptSeries(this.metrics, providerId, upstreamModel),
      );
  }
}

/** The series of one route's upstream attempts: its successes, and by kind its failures. */
class AttemptSeries {
  readonly succeeded: HistogramSeries;
  readonly #failures = new SeriesCache<{ observe(seconds: number): void }>(64);

  constructor(
    readonly metrics: GatewayMetrics,
    readonly providerId: string,
    readonly upstreamModel: string,
  ) {
    this.succeeded = metrics.upstreamDuration.series({
      gen_ai_provider_name: providerId,
      gen_ai_request_model: upstreamModel,
    });
  }

  failed(kind: string, seconds: number): void {
    (this.#failures.get(kind) ?? this.#failures.add(kind, this.#failureSeries(kind))).observe(
      seconds,
    );
  }

  #failureSeries(kind: string): { observe(seconds: number): void } {
    const labels: Record<string, string> = {
      gen_ai_provider_name: this.providerId,
      gen_ai_request_model: this.upstreamModel,
    };
    if (kind !== "none") labels.error_type = kind;
    const duration = this.metrics.upstreamDuration.series(labels);
    const count = this.metrics.upstreamFailures.series({
      provider: this.providerId,
      kind,
    });
    return {
      observe(seconds) {
        duration.observe(seconds);
        count.inc();
      },
    };
  }
}
