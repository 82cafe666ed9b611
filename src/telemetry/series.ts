/**
 * One labelled series of a prom-client metric, recorded without prom-client's per-call work.
 * `histogram.observe(labels, v)` and `counter.inc(labels, v)` check every label name, build the
 * series key from the labels, look it up and (a histogram) allocate a closure, on every call.
 * A series does that once: it keeps the label set and its key, and on each call only updates
 * the very object prom-client keeps for that series in the metric's `hashMap` — the object
 * `observe`/`inc` would have updated — so the metric's `get()` and the registry's text are
 * what they would be with prom-client's own calls, in the same order (the object enters the
 * map at the series' first observation, as with `observe`). Direct prom-client calls on the
 * same metric stay valid: both update the same object.
 *
 * This reads prom-client 15's internals (`hashMap`, `sortedLabelNames`, `upperBounds`, the
 * shape of a series' object); the constructor checks them, and
 * tests/telemetry/series_test.ts compares the text exposition with prom-client's own calls.
 */
import type { Counter, Histogram } from "prom-client";

export type Labels = Record<string, string>;

/** What prom-client 15 keeps for one histogram series (`createBaseValues`). */
interface HistogramEntry {
  labels: Labels;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

/** What prom-client 15 keeps for one counter series. */
interface CounterEntry {
  value: number;
  labels: Labels;
}

/** The internals of a prom-client 15 metric read here. */
interface MetricInternals<E> {
  name: string;
  labelNames: string[];
  sortedLabelNames: string[];
  hashMap: Record<string, E>;
}

function internals<E>(metric: unknown): MetricInternals<E> {
  const m = metric as Partial<MetricInternals<E>>;
  if (
    typeof m.hashMap !== "object" || m.hashMap === null || !Array.isArray(m.labelNames) ||
    !Array.isArray(m.sortedLabelNames)
  ) {
    throw new Error(`prom-client internals changed: ${m.name} has no hashMap/sortedLabelNames`);
  }
  return m as MetricInternals<E>;
}

/** The series prom-client just made under `key`. */
function found<E>(map: Record<string, E>, key: string): E {
  const entry = map[key];
  if (entry === undefined) throw new Error(`prom-client internals changed: no series ${key}`);
  return entry;
}

/** prom-client's key of a label set (`hashObject` with the sorted label names). */
function seriesKey(labels: Labels, sortedNames: readonly string[]): string {
  let key = "";
  for (const name of sortedNames) {
    const value = labels[name];
    if (value !== undefined) key += `${name}:${value},`;
  }
  return key;
}

/** prom-client's label check (`validateLabel`), done once per series instead of per call. */
function checkLabels(metric: MetricInternals<unknown>, labels: Labels): void {
  for (const name in labels) {
    if (!metric.labelNames.includes(name)) {
      throw new Error(`Label "${name}" is not a label of ${metric.name}`);
    }
  }
}

export class HistogramSeries {
  readonly #histogram: Histogram<string>;
  readonly #metric: MetricInternals<HistogramEntry>;
  readonly #labels: Labels;
  readonly #key: string;
  readonly #bounds: readonly number[];
  /** `String(bound)`: the property names of `bucketValues`. */
  readonly #bucketNames: readonly string[];
  /** The map `#entry` was found in (a `reset()` replaces it). */
  #map: Record<string, HistogramEntry> | undefined;
  #entry: HistogramEntry | undefined;

  constructor(histogram: Histogram<string>, labels: Labels = {}) {
    this.#histogram = histogram;
    this.#metric = internals<HistogramEntry>(histogram);
    const bounds = (histogram as unknown as { upperBounds?: unknown }).upperBounds;
    if (!Array.isArray(bounds)) {
      throw new Error(`prom-client internals changed: ${this.#metric.name} has no upperBounds`);
    }
    checkLabels(this.#metric, labels);
    this.#labels = labels;
    this.#key = seriesKey(labels, this.#metric.sortedLabelNames);
    this.#bounds = bounds;
    this.#bucketNames = bounds.map(String);
  }

  /** `histogram.observe(labels, value)`. */
  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const entry = this.#map === this.#metric.hashMap ? this.#entry! : this.#find();
    entry.sum += value;
    entry.count += 1;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        entry.bucketValues[this.#bucketNames[i]!]! += 1;
        return;
      }
    }
  }

  #find(): HistogramEntry {
    const map = this.#metric.hashMap;
    let entry = map[this.#key];
    if (entry === undefined) {
      this.#histogram.zero(this.#labels);
      entry = found(map, this.#key);
    }
    this.#map = map;
    this.#entry = entry;
    return entry;
  }
}

export class CounterSeries {
  readonly #counter: Counter<string>;
  readonly #metric: MetricInternals<CounterEntry>;
  readonly #labels: Labels;
  readonly #key: string;
  #map: Record<string, CounterEntry> | undefined;
  #entry: CounterEntry | undefined;

  constructor(counter: Counter<string>, labels: Labels) {
    this.#counter = counter;
    this.#metric = internals<CounterEntry>(counter);
    checkLabels(this.#metric, labels);
    this.#labels = labels;
    this.#key = seriesKey(labels, this.#metric.sortedLabelNames);
  }

  /** `counter.inc(labels, value)` (its checks included). */
  inc(value = 1): void {
    if (value && !Number.isFinite(value)) {
      throw new TypeError(`Value is not a valid number: ${value}`);
    }
    if (value < 0) throw new Error("It is not possible to decrease a counter");
    const entry = this.#map === this.#metric.hashMap ? this.#entry! : this.#find();
    entry.value += value;
  }

  #find(): CounterEntry {
    const map = this.#metric.hashMap;
    let entry = map[this.#key];
    if (entry === undefined) {
      // prom-client's own first `inc`, of 0: the series' object as prom-client makes it.
      this.#counter.inc(this.#labels, 0);
      entry = found(map, this.#key);
    }
    this.#map = map;
    this.#entry = entry;
    return entry;
  }
}

/**
 * A map of series (or of bundles of them) by a key the caller composes, holding at most `limit`
 * entries: past that, `get` misses and the caller builds a series for the one call (correct,
 * only slower), so a label value nobody bounded cannot grow memory here beyond the limit.
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
