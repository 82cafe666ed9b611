/**
 * The gateway's Prometheus metrics. The request path records into families of series
 * (`series.ts`); the gauges and the one counter kept elsewhere are prom-client metrics read at
 * scrape time through their `collect` hook. `json()` lists them all as prom-client's public
 * JSON, in the order below; prom-client makes the text exposition from it. Names follow the
 * OpenTelemetry GenAI semantic conventions where they define one (rendered the Prometheus way:
 * dots → underscores, unit suffix), `sovra_*` otherwise. Every label value comes from a fixed
 * set or from the catalog (model and provider ids), so cardinality is bounded: no key ids, no
 * end-user ids, no client-chosen strings.
 */
import { Counter, Gauge, Registry } from "prom-client";
import { CounterFamily, HistogramFamily, type MetricJson } from "./series.ts";

/** OpenTelemetry GenAI's advised buckets for `gen_ai.*.duration` (seconds). */
const DURATION_BUCKETS = [
  0.01,
  0.02,
  0.04,
  0.08,
  0.16,
  0.32,
  0.64,
  1.28,
  2.56,
  5.12,
  10.24,
  20.48,
  40.96,
  81.92,
];
/** OpenTelemetry GenAI's advised buckets for time to first token (seconds). */
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5];
/** OpenTelemetry GenAI's advised buckets for `gen_ai.client.token.usage`. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];
const COMMIT_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const COMMIT_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const LOOP_DELAY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const GEN_AI_LABELS = [
  "gen_ai_operation_name",
  "gen_ai_request_model",
  "gen_ai_response_model",
  "gen_ai_provider_name",
  "error_type",
] as const;

/** A gauge whose value is read at scrape time from `collect`. */
class ReadGauge {
  collect: () => number = () => 0;
  readonly #gauge: Gauge;
  constructor(name: string, help: string) {
    // deno-lint-ignore no-this-alias
    const self = this;
    this.#gauge = new Gauge({
      name,
      help,
      registers: [],
      collect() {
        this.set(self.collect());
      },
    });
  }

  async json(): Promise<MetricJson> {
    return await this.#gauge.get() as unknown as MetricJson;
  }
}

/** A counter whose total is kept elsewhere and read at scrape time. */
class ReadCounter {
  collect: () => number = () => 0;
  readonly #counter: Counter;
  constructor(name: string, help: string) {
    // deno-lint-ignore no-this-alias
    const self = this;
    let seen = 0;
    this.#counter = new Counter({
      name,
      help,
      registers: [],
      collect() {
        const now = self.collect();
        if (now > seen) this.inc(now - seen);
        seen = now;
      },
    });
  }

  async json(): Promise<MetricJson> {
    return await this.#counter.get() as unknown as MetricJson;
  }
}

export class GatewayMetrics {
  /** The exposition's content type (Prometheus text 0.0.4). */
  readonly contentType: string = Registry.PROMETHEUS_CONTENT_TYPE;
  readonly requests: CounterFamily;
  readonly requestDuration: HistogramFamily;
  readonly timeToFirstToken: HistogramFamily;
  readonly overhead: HistogramFamily;
  readonly upstreamDuration: HistogramFamily;
  readonly upstreamFailures: CounterFamily;
  readonly fallbacks: CounterFamily;
  readonly tokens: HistogramFamily;
  readonly audioSeconds: CounterFamily;
  readonly characters: CounterFamily;
  readonly billed: CounterFamily;
  readonly gateRefusals: CounterFamily;
  readonly failOpen: ReadCounter;
  readonly commitBatchSize: HistogramFamily;
  readonly commitDuration: HistogramFamily;
  readonly openStreams: ReadGauge;
  readonly slotsInUse: ReadGauge;
  readonly slotsWaiting: ReadGauge;
  readonly eventLoopDelay: HistogramFamily;

  constructor() {
    this.requests = new CounterFamily({
      name: "sovra_requests_total",
      help: "Requests by endpoint, requested model, served model, provider and status class " +
        "(model labels empty when no provider was reached).",
      labelNames: ["endpoint", "requested_model", "served_model", "provider", "status_class"],
    });
    this.requestDuration = new HistogramFamily({
      name: "gen_ai_server_request_duration_seconds",
      help: "Request duration from the gate to the settle (a stream: to its last event).",
      labelNames: GEN_AI_LABELS,
      buckets: DURATION_BUCKETS,
    });
    this.timeToFirstToken = new HistogramFamily({
      name: "gen_ai_server_time_to_first_token_seconds",
      help: "Streams: time from the gate to the first event from the provider.",
      labelNames: GEN_AI_LABELS,
      buckets: TTFT_BUCKETS,
    });
    this.overhead = new HistogramFamily({
      name: "sovra_gateway_overhead_seconds",
      help: "The gateway's own time: total (a stream: time to first event) minus upstream time.",
      labelNames: ["endpoint", "stream"],
      buckets: OVERHEAD_BUCKETS,
    });
    this.upstreamDuration = new HistogramFamily({
      name: "gen_ai_client_operation_duration_seconds",
      help: "Each upstream attempt (a stream: up to its first event); error_type is the " +
        "failure kind, empty on success.",
      labelNames: ["gen_ai_provider_name", "gen_ai_request_model", "error_type"],
      buckets: DURATION_BUCKETS,
    });
    this.upstreamFailures = new CounterFamily({
      name: "sovra_upstream_failures_total",
      help: "Failed upstream attempts by provider and failure kind.",
      labelNames: ["provider", "kind"],
    });
    this.fallbacks = new CounterFamily({
      name: "sovra_fallbacks_total",
      help: "Routes tried before the one that served (or before giving up).",
      labelNames: ["endpoint", "requested_model"],
    });
    this.tokens = new HistogramFamily({
      name: "gen_ai_client_token_usage",
      help: "Tokens per request as billed (input = prompt, output = completion); _sum is " +
        "the total.",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_token_type"],
      buckets: TOKEN_BUCKETS,
    });
    const billedLabels = ["endpoint", "requested_model", "provider"];
    this.audioSeconds = new CounterFamily({
      name: "sovra_audio_seconds_total",
      help: "Seconds of audio billed (transcriptions).",
      labelNames: billedLabels,
    });
    this.characters = new CounterFamily({
      name: "sovra_characters_total",
      help: "Characters billed (speech).",
      labelNames: billedLabels,
    });
    this.billed = new CounterFamily({
      name: "sovra_billed_micro_eur_total",
      help: "Micro-EUR billed to organizations.",
      labelNames: billedLabels,
    });
    this.gateRefusals = new CounterFamily({
      name: "sovra_gate_refusals_total",
      help: "Requests the gate refused: reason rate_limit (429) or insufficient_credits (402).",
      labelNames: ["reason"],
    });
    this.failOpen = new ReadCounter(
      "sovra_gate_fail_open_total",
      "Gate store reads or rate-bucket writes that failed; the request was let through.",
    );
    this.commitBatchSize = new HistogramFamily({
      name: "sovra_commit_batch_size",
      help: "Writes (settles, rate increments) carried by one group commit.",
      buckets: COMMIT_SIZE_BUCKETS,
    });
    this.commitDuration = new HistogramFamily({
      name: "sovra_commit_duration_seconds",
      help: "Duration of one group commit, retries included.",
      buckets: COMMIT_SECONDS_BUCKETS,
    });
    this.openStreams = new ReadGauge(
      "sovra_open_streams",
      "Streamed answers open now.",
    );
    this.slotsInUse = new ReadGauge(
      "sovra_transcription_slots_in_use",
      "Transcription slots held now.",
    );
    this.slotsWaiting = new ReadGauge(
      "sovra_transcription_slots_waiting",
      "Transcription requests waiting for a slot now.",
    );
    this.eventLoopDelay = new HistogramFamily({
      name: "sovra_event_loop_delay_seconds",
      help: "How late a periodic timer fired (event-loop delay).",
      buckets: LOOP_DELAY_BUCKETS,
    });
  }

  /** Every metric as prom-client's public JSON, in the order declared above. */
  async json(): Promise<MetricJson[]> {
    const all: MetricJson[] = [];
    for (const metric of Object.values(this)) {
      if (isListed(metric)) all.push(await metric.json());
    }
    return all;
  }
}

function isListed(value: unknown): value is { json(): MetricJson | Promise<MetricJson> } {
  return value instanceof CounterFamily || value instanceof HistogramFamily ||
    value instanceof ReadGauge || value instanceof ReadCounter;
}
