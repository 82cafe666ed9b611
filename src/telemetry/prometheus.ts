/**
 * The gateway's Prometheus metrics (prom-client, one registry per gateway). Names follow the
 * OpenTelemetry GenAI semantic conventions where they define one (rendered the Prometheus way:
 * dots → underscores, unit suffix), `sovra_*` otherwise. Every label value comes from a fixed
 * set or from the catalog (model and provider ids), so cardinality is bounded: no key ids, no
 * end-user ids, no client-chosen strings.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

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
  constructor(registry: Registry, name: string, help: string) {
    // deno-lint-ignore no-this-alias
    const self = this;
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(self.collect());
      },
    });
  }
}

/** A counter whose total is kept elsewhere and read at scrape time. */
class ReadCounter {
  collect: () => number = () => 0;
  constructor(registry: Registry, name: string, help: string) {
    // deno-lint-ignore no-this-alias
    const self = this;
    let seen = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = self.collect();
        if (now > seen) this.inc(now - seen);
        seen = now;
      },
    });
  }
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<string>;
  readonly requestDuration: Histogram<string>;
  readonly timeToFirstToken: Histogram<string>;
  readonly overhead: Histogram<string>;
  readonly upstreamDuration: Histogram<string>;
  readonly upstreamFailures: Counter<string>;
  readonly fallbacks: Counter<string>;
  readonly tokens: Histogram<string>;
  readonly audioSeconds: Counter<string>;
  readonly characters: Counter<string>;
  readonly billed: Counter<string>;
  readonly gateRefusals: Counter<string>;
  readonly failOpen: ReadCounter;
  readonly commitBatchSize: Histogram<string>;
  readonly commitDuration: Histogram<string>;
  readonly openStreams: ReadGauge;
  readonly slotsInUse: ReadGauge;
  readonly slotsWaiting: ReadGauge;
  readonly eventLoopDelay: Histogram<string>;

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({
      name: "sovra_requests_total",
      help: "Requests by endpoint, requested model, served model, provider and status class " +
        "(model labels empty when no provider was reached).",
      labelNames: ["endpoint", "requested_model", "served_model", "provider", "status_class"],
      registers,
    });
    this.requestDuration = new Histogram({
      name: "gen_ai_server_request_duration_seconds",
      help: "Request duration from the gate to the settle (a stream: to its last event).",
      labelNames: GEN_AI_LABELS,
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.timeToFirstToken = new Histogram({
      name: "gen_ai_server_time_to_first_token_seconds",
      help: "Streams: time from the gate to the first event from the provider.",
      labelNames: GEN_AI_LABELS,
      buckets: TTFT_BUCKETS,
      registers,
    });
    this.overhead = new Histogram({
      name: "sovra_gateway_overhead_seconds",
      help: "The gateway's own time: total (a stream: time to first event) minus upstream time.",
      labelNames: ["endpoint", "stream"],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.upstreamDuration = new Histogram({
      name: "gen_ai_client_operation_duration_seconds",
      help: "Each upstream attempt (a stream: up to its first event); error_type is the " +
        "failure kind, empty on success.",
      labelNames: ["gen_ai_provider_name", "gen_ai_request_model", "error_type"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.upstreamFailures = new Counter({
      name: "sovra_upstream_failures_total",
      help: "Failed upstream attempts by provider and failure kind.",
      labelNames: ["provider", "kind"],
      registers,
    });
    this.fallbacks = new Counter({
      name: "sovra_fallbacks_total",
      help: "Routes tried before the one that served (or before giving up).",
      labelNames: ["endpoint", "requested_model"],
      registers,
    });
    this.tokens = new Histogram({
      name: "gen_ai_client_token_usage",
      help: "Tokens per request as billed (input = prompt, output = completion); _sum is " +
        "the total.",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_token_type"],
      buckets: TOKEN_BUCKETS,
      registers,
    });
    const billedLabels = ["endpoint", "requested_model", "provider"];
    this.audioSeconds = new Counter({
      name: "sovra_audio_seconds_total",
      help: "Seconds of audio billed (transcriptions).",
      labelNames: billedLabels,
      registers,
    });
    this.characters = new Counter({
      name: "sovra_characters_total",
      help: "Characters billed (speech).",
      labelNames: billedLabels,
      registers,
    });
    this.billed = new Counter({
      name: "sovra_billed_micro_eur_total",
      help: "Micro-EUR billed to organizations.",
      labelNames: billedLabels,
      registers,
    });
    this.gateRefusals = new Counter({
      name: "sovra_gate_refusals_total",
      help: "Requests the gate refused: reason rate_limit (429) or insufficient_credits (402).",
      labelNames: ["reason"],
      registers,
    });
    this.failOpen = new ReadCounter(
      this.registry,
      "sovra_gate_fail_open_total",
      "Gate store reads or rate-bucket writes that failed; the request was let through.",
    );
    this.commitBatchSize = new Histogram({
      name: "sovra_commit_batch_size",
      help: "Writes (settles, rate increments) carried by one group commit.",
      buckets: COMMIT_SIZE_BUCKETS,
      registers,
    });
    this.commitDuration = new Histogram({
      name: "sovra_commit_duration_seconds",
      help: "Duration of one group commit, retries included.",
      buckets: COMMIT_SECONDS_BUCKETS,
      registers,
    });
    this.openStreams = new ReadGauge(
      this.registry,
      "sovra_open_streams",
      "Streamed answers open now.",
    );
    this.slotsInUse = new ReadGauge(
      this.registry,
      "sovra_transcription_slots_in_use",
      "Transcription slots held now.",
    );
    this.slotsWaiting = new ReadGauge(
      this.registry,
      "sovra_transcription_slots_waiting",
      "Transcription requests waiting for a slot now.",
    );
    this.eventLoopDelay = new Histogram({
      name: "sovra_event_loop_delay_seconds",
      help: "How late a periodic timer fired (event-loop delay).",
      buckets: LOOP_DELAY_BUCKETS,
      registers,
    });
  }
}
