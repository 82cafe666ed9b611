/**
 * The series a settled request lands in, found with one map lookup per request: requests
 * with the same endpoint, status, stream flag, requested and served model and provider land in
 * the same series of every metric, so those are built (labels, keys, checks) once per such
 * tuple and kept.
 */
import type { RequestRecord } from "../state/records.ts";
import type { GatewayMetrics } from "./prometheus.ts";
import type { CounterSeries, HistogramSeries, Labels } from "./series.ts";
import { level } from "./series.ts";
import { BILLED_ENDPOINTS } from "../billed_endpoints.ts";

/** The record fields that decide a request's labels. */
type LabelFields = Pick<
  RequestRecord,
  "endpoint" | "status" | "stream" | "requested_model" | "served_model" | "provider"
>;

export class RecordSeries {
  readonly requests: CounterSeries;
  readonly duration: HistogramSeries;
  readonly firstToken: HistogramSeries;
  readonly overhead: HistogramSeries;
  readonly inputTokens: HistogramSeries;
  readonly outputTokens: HistogramSeries;
  readonly audioSeconds: CounterSeries;
  readonly characters: CounterSeries;
  readonly billed: CounterSeries;
  readonly fallbacks: CounterSeries;

  constructor(m: GatewayMetrics, record: LabelFields) {
    const model = record.requested_model;
    const provider = record.provider ?? "none";
    const requests: Labels = {
      endpoint: record.endpoint,
      requested_model: model,
      status_class: statusClass(record.status),
    };
    const op = BILLED_ENDPOINTS[record.endpoint].operation;
    const genAi: Labels = { gen_ai_operation_name: op, gen_ai_request_model: model };
    if (record.served_model !== null) {
      requests.served_model = genAi.gen_ai_response_model = record.served_model;
    }
    if (record.provider !== null) requests.provider = genAi.gen_ai_provider_name = provider;
    if (record.status >= 400) genAi.error_type = String(record.status);
    this.requests = m.requests.series(requests);
    this.duration = m.requestDuration.series(genAi);
    this.firstToken = m.timeToFirstToken.series(genAi);
    this.overhead = m.overhead.series({
      endpoint: record.endpoint,
      stream: String(record.stream),
    });
    const usage = { gen_ai_operation_name: op, gen_ai_provider_name: provider };
    this.inputTokens = m.tokens.series({ ...usage, gen_ai_token_type: "input" });
    this.outputTokens = m.tokens.series({ ...usage, gen_ai_token_type: "output" });
    const billed = { endpoint: record.endpoint, requested_model: model, provider };
    this.audioSeconds = m.audioSeconds.series(billed);
    this.characters = m.characters.series(billed);
    this.billed = m.billed.series(billed);
    this.fallbacks = m.fallbacks.series({
      endpoint: record.endpoint,
      requested_model: model,
    });
  }
}

type By<K, V> = Map<K, V>;
type Tree = By<
  string,
  By<number, By<boolean, By<string, By<string | null, By<string | null, RecordSeries>>>>>
>;

/**
 * The bundles by label tuple, in maps nested by field (a lookup composes no key string, and
 * two tuples never share an entry). Bounded: past `limit` bundles, one is built for the call.
 */
export class RecordSeriesCache {
  readonly #tree: Tree = new Map();
  #size = 0;
  constructor(readonly metrics: GatewayMetrics, readonly limit = 4096) {}

  of(record: LabelFields): RecordSeries {
    return this.#tree.get(record.endpoint)?.get(record.status)?.get(record.stream)
      ?.get(record.requested_model)?.get(record.served_model)?.get(record.provider) ??
      this.#add(record);
  }

  #add(record: LabelFields): RecordSeries {
    const series = new RecordSeries(this.metrics, record);
    if (this.#size >= this.limit) return series;
    this.#size++;
    const byStatus = level(this.#tree, record.endpoint);
    const byStream = level(byStatus, record.status);
    const byModel = level(byStream, record.stream);
    const byServed = level(byModel, record.requested_model);
    level(byServed, record.served_model).set(record.provider, series);
    return series;
  }

  get size(): number {
    return this.#size;
  }
}

const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"];

/** `2xx` for 200–299 and so on; `other` outside 100–599. */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? STATUS_CLASSES[Math.floor(status / 100) - 1]! : "other";
}
