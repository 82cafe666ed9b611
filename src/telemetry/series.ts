/**
 * Metric families whose series the request path holds: a family hands out one series object
 * per label set, built (labels checked, key made) once, and a call on the request path only adds
 * to that object's numbers. The values live here; prom-client renders them: `json()` returns a
 * family as prom-client's public JSON (the shape `Registry.getMetricsAsJSON` lists, which
 * `AggregatorRegistry.aggregate` takes), and the text exposition is made from that JSON.
 */
import { validateMetricName } from "prom-client";

export type Labels = Record<string, string>;

/** One metric as prom-client's `getMetricsAsJSON` lists it (its public JSON). */
export interface MetricJson {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  aggregator: "sum";
  values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
}

export interface FamilyOptions {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

/** A family's series by label set; listed in the order they were first recorded into. */
abstract class Family<S extends Series> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #sortedNames: readonly string[];
  readonly #series = new Map<string, S>();
  /** The series recorded into, in the order of their first observation. */
  protected readonly listed: S[] = [];

  constructor(options: FamilyOptions) {
    if (!validateMetricName(options.name)) throw new Error(`Invalid metric name ${options.name}`);
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
    this.#sortedNames = [...this.labelNames].sort();
  }

  /** The series of `labels` (each a label of this family), made at its first request. */
  series(labels: Labels = {}): S {
    const key = this.#key(labels);
    let series = this.#series.get(key);
    if (series === undefined) {
      const made = this.make(labels);
      made.unlisted = () => this.listed.push(made);
      this.#series.set(key, made);
      series = made;
    }
    return series;
  }

  protected abstract make(labels: Labels): S;

  #key(labels: Labels): string {
    for (const name in labels) {
      if (!this.labelNames.includes(name)) {
        throw new Error(`Label "${name}" is not a label of ${this.name}`);
      }
    }
    let key = "";
    for (const name of this.#sortedNames) {
      const value = labels[name];
      if (value !== undefined) key += `${name}:${value},`;
    }
    return key;
  }
}

/** What every series shares: its labels, and how it joins its family's listing once. */
abstract class Series {
  /** Set by the family until the first observation lists the series. */
  unlisted: (() => void) | undefined;
  constructor(readonly labels: Labels) {}

  protected recorded(): void {
    const list = this.unlisted;
    if (list !== undefined) {
      this.unlisted = undefined;
      list();
    }
  }
}

export class CounterSeries extends Series {
  value = 0;

  inc(value = 1): void {
    if (value && !Number.isFinite(value)) {
      throw new TypeError(`Value is not a valid number: ${value}`);
    }
    if (value < 0) throw new Error("It is not possible to decrease a counter");
    this.value += value;
    if (this.unlisted !== undefined) this.recorded();
  }
}

/** A counter; an unlabelled one is listed (at 0) from the start, as Prometheus expects. */
export class CounterFamily extends Family<CounterSeries> {
  constructor(options: FamilyOptions) {
    super(options);
    if (this.labelNames.length === 0) this.series().inc(0);
  }

  protected make(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  json(): MetricJson {
    const values = this.listed.map((s) => ({ value: s.value, labels: { ...s.labels } }));
    return { name: this.name, help: this.help, type: "counter", aggregator: "sum", values };
  }
}

export class HistogramSeries extends Series {
  /** Observations per bucket (not cumulative), one per upper bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(labels: Labels, readonly bounds: readonly number[]) {
    super(labels);
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    this.sum += value;
    this.count += 1;
    if (this.unlisted !== undefined) this.recorded();
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]! += 1;
        return;
      }
    }
  }
}

/** A histogram; an unlabelled one is listed (empty) from the start, as Prometheus expects. */
export class HistogramFamily extends Family<HistogramSeries> {
  readonly buckets: readonly number[];

  constructor(options: FamilyOptions & { buckets: readonly number[] }) {
    super(options);
    if (this.labelNames.includes("le")) throw new Error("le is a reserved label keyword");
    this.buckets = [...options.buckets].sort((a, b) => a - b);
    if (this.labelNames.length === 0) {
      const only = this.series();
      only.unlisted?.();
      only.unlisted = undefined;
    }
  }

  protected make(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }

  /** Per series: each bucket's cumulative count (`le`), `+Inf`, then `_sum` and `_count`. */
  json(): MetricJson {
    const values: MetricJson["values"] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.listed) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ value: cumulative, labels: { le, ...s.labels }, metricName: bucket });
      });
      values.push({ value: s.count, labels: { le: "+Inf", ...s.labels }, metricName: bucket });
      values.push({ value: s.sum, labels: { ...s.labels }, metricName: `${this.name}_sum` });
      values.push({ value: s.count, labels: { ...s.labels }, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: "histogram", aggregator: "sum", values };
  }
}

/**
 * A map of series (or of bundles of them) by a key the caller composes, holding at most `limit`
 * entries: past that, `get` misses and the caller asks the family again for the one call
 * (correct, only slower), so a label value nobody bounded cannot grow memory here beyond the
 * limit.
 */
export class SeriesCache<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly limit: number) {}

  get(key: string): V | undefined {
    return this.#map.get(key);
  }

  /** Keeps `value` under `key` while there is room; returns it. */
  add(key: string, value: V): V {
    if (this.#map.size < this.limit) this.#map.set(key, value);
    return value;
  }

  get size(): number {
    return this.#map.size;
  }
}

/** `SeriesCache` by two keys (maps nested, so no key string is composed per call). */
export class SeriesCacheByPair<V> {
  readonly #map = new Map<string, Map<string, V>>();
  #size = 0;
  constructor(readonly limit: number) {}

  get(a: string, b: string): V | undefined {
    return this.#map.get(a)?.get(b);
  }

  /** Keeps `value` under `a`, `b` while there is room; returns it. */
  add(a: string, b: string, value: V): V {
    if (this.#size < this.limit) {
      this.#size++;
      level(this.#map, a).set(b, value);
    }
    return value;
  }

  get size(): number {
    return this.#size;
  }
}

/** The map under `key` in `map`, made if missing. */
export function level<K, M extends Map<unknown, unknown>>(map: Map<K, M>, key: K): M {
  let next = map.get(key);
  if (next === undefined) {
    next = new Map() as M;
    map.set(key, next);
  }
  return next;
}
