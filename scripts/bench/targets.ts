/**
 * The performance targets the bench prints first (README, Performance): each a ratio or a
 * difference within one run, so a slow moment of the shared host moves both sides alike. A row
 * is met, missed, or not measured (its scenario was not run).
 *
 * - production-shaped: CPU per streamed and per non-stream request ≤ 1.5 × the bare proxy's,
 *   added first byte p99 ≤ 2 ms, memory per open stream ≤ 1.5 × the bare proxy's;
 * - instant upstream: non-stream req/s ≥ 50 % and stream req/s ≥ 40 % of the bare proxy's,
 *   500 paced streams/s with added p99 ≤ 3 ms;
 * - `--peers`: Sovra ahead of every peer on each of those rows.
 */
import type { ProductionTargetResult } from "./measure.ts";
import { addedFirstByteMs, cpuPerRequestUs, kbPerOpen, steady } from "./production_report.ts";
import type { BenchResults, TargetResult } from "./report.ts";
import type { PeerName } from "./peers.ts";
import type { ProductionScenario, ScenarioName, TargetName } from "./workload.ts";

export const TARGET_LIMITS = {
  prodCpuRatio: 1.5,
  prodAddedFirstByteP99Ms: 2,
  prodMemoryRatio: 1.5,
  instantNonStreamShare: 0.5,
  instantStreamShare: 0.4,
  pacedStreams: 500,
  pacedStreamAddedP99Ms: 3,
};

export interface TargetRow {
  name: string;
  /** Sovra's figure as printed (with the reference it was divided by). */
  measured: string;
  limit: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

const fmt = (n: number, digits = 2) => Number.isFinite(n) ? n.toFixed(digits) : "–";
const us = (n: number) => Number.isFinite(n) ? `${Math.round(n).toLocaleString("en-US")} µs` : "–";
const kib = (n: number) => Number.isFinite(n) ? `${Math.round(n)} KiB` : "–";
const rps = (n: number) =>
  Number.isFinite(n) ? `${Math.round(n).toLocaleString("en-US")} req/s` : "–";

/** One comparable figure per row: how to read it from a target, and which way is better. */
interface Metric {
  name: string;
  better: "lower" | "higher";
  /** The target's figure (NaN: not measured), and how to print it. */
  of: (results: BenchResults, target: TargetName) => number;
  show: (n: number) => string;
  /** A scenario the target could not serve makes it not comparable on this row. */
  scenario: ScenarioName | ProductionScenario;
  /** For an instant row: which of the scenario's runs it is read from (its errors count). */
  run?: "closed" | "paced";
}

const prod = (results: BenchResults, scenario: ProductionScenario, target: TargetName) =>
  results.production?.scenarios[scenario]?.[target];
const instant = (results: BenchResults, scenario: ScenarioName, target: TargetName) =>
  results.scenarios[scenario]?.[target];
const prodFigure = (
  f: (r: ProductionTargetResult, direct: ProductionTargetResult | undefined) => number,
  scenario: ProductionScenario,
) =>
(results: BenchResults, target: TargetName) => {
  const r = prod(results, scenario, target);
  return r === undefined ? NaN : f(r, prod(results, scenario, "direct"));
};
const instantFigure =
  (f: (r: TargetResult, direct: TargetResult | undefined) => number, scenario: ScenarioName) =>
  (results: BenchResults, target: TargetName) => {
    const r = instant(results, scenario, target);
    return r === undefined ? NaN : f(r, instant(results, scenario, "direct"));
  };

const METRICS: Metric[] = [
  {
    name: "production-shaped stream: CPU per request",
    better: "lower",
    of: prodFigure((r) => cpuPerRequestUs(r), "prod-stream"),
    show: us,
    scenario: "prod-stream",
  },
  {
    name: "production-shaped non-stream: CPU per request",
    better: "lower",
    of: prodFigure((r) => cpuPerRequestUs(r), "prod-non-stream"),
    show: us,
    scenario: "prod-non-stream",
  },
  {
    name: "production-shaped stream: added first byte p99",
    better: "lower",
    of: prodFigure((r, d) => addedFirstByteMs(r, d, "p99"), "prod-stream"),
    show: (n) => `${fmt(n)} ms`,
    scenario: "prod-stream",
  },
  {
    name: "production-shaped non-stream: added first byte p99",
    better: "lower",
    of: prodFigure((r, d) => addedFirstByteMs(r, d, "p99"), "prod-non-stream"),
    show: (n) => `${fmt(n)} ms`,
    scenario: "prod-non-stream",
  },
  {
    name: "production-shaped stream: memory per open stream",
    better: "lower",
    of: prodFigure((r) => kbPerOpen(r), "prod-stream"),
    show: kib,
    scenario: "prod-stream",
  },
  {
    name: "instant non-stream: req/s",
    better: "higher",
    of: instantFigure((r) => r.closed?.requestsPerSecond ?? NaN, "non-stream"),
    show: rps,
    scenario: "non-stream",
    run: "closed",
  },
  {
    name: "instant stream: req/s",
    better: "higher",
    of: instantFigure((r) => r.closed?.requestsPerSecond ?? NaN, "stream"),
    show: rps,
    scenario: "stream",
    run: "closed",
  },
  {
    name: "instant stream, paced: added p99",
    better: "lower",
    of: instantFigure(
      (r, d) => d === undefined ? NaN : r.paced.latency.p99 - d.paced.latency.p99,
      "stream",
    ),
    show: (n) => `${fmt(n)} ms`,
    scenario: "stream",
    run: "paced",
  },
];

/** Errors of a target in a row's run (a target that failed requests does not meet a row). */
function errorsOf(results: BenchResults, metric: Metric, target: TargetName): number {
  const p = results.production?.scenarios[metric.scenario as ProductionScenario]?.[target];
  if (p) return p.errors;
  const r = results.scenarios[metric.scenario as ScenarioName]?.[target];
  if (!r) return 0;
  return metric.run === "closed" ? r.closed?.errors ?? 0 : r.paced.errors;
}

/**
 * A closed loop measures the code only when the proxy had its core: at saturation it uses all of
 * it. On a shared host a starved proxy gets a fraction (its CPU per request × req/s), and its req/s
 * say how much of the core it was given, not what it costs.
 */
export const MIN_CLOSED_SHARE = 0.8;

function closedShare(r: TargetResult | undefined): number {
  if (!r?.closed || r.proxyCpuUsPerRequest === undefined) return NaN;
  return r.proxyCpuUsPerRequest * r.closed.requestsPerSecond / 1e6;
}

/** Why a closed-loop row does not measure the code (a starved proxy), or undefined. */
function starved(results: BenchResults, metric: Metric, targets: TargetName[]): string | undefined {
  if (metric.run !== "closed") return undefined;
  const low = targets.map((t) =>
    [t, closedShare(results.scenarios[metric.scenario as ScenarioName]?.[t])] as const
  )
    .filter(([, share]) => share < MIN_CLOSED_SHARE);
  return low.length === 0
    ? undefined
    : `starved: ${
      low.map(([t, share]) => `${t} had ${Math.round(share * 100)} % of its core`).join(", ")
    }`;
}

function ranIn(results: BenchResults, scenario: string, target: TargetName): boolean {
  return results.production?.scenarios[scenario as ProductionScenario]?.[target] !== undefined ||
    results.scenarios[scenario as ScenarioName]?.[target] !== undefined;
}

/**
 * Production-shaped rows need a steady state of both sides (production_report.ts `steady`);
 * without it the row is not measured and says why.
 */
function unsteady(
  results: BenchResults,
  scenario: string,
  targets: TargetName[],
): string | undefined {
  const production = results.production;
  const of = production?.scenarios[scenario as ProductionScenario];
  if (!production || !of) return undefined;
  const late = targets.filter((t) => of[t] && !steady(of[t]!, production.warmupSeconds));
  return late.length === 0
    ? undefined
    : `not steady: ${late.join(", ")} answered slower than the warm-up allows`;
}

/** Sovra ÷ the bare proxy (or minus, for times), against the limit. */
function ownRows(results: BenchResults): TargetRow[] {
  const L = TARGET_LIMITS;
  const rows: TargetRow[] = [];
  const vsBare = (
    metric: Metric,
    limit: number,
    name: string,
    asShare = false,
  ) => {
    const sovra = metric.of(results, "sovra");
    const bare = metric.of(results, "bare-proxy");
    const r = sovra / bare;
    // A closed-loop row also names what each side spent per request (its robust figure).
    const cpu = (t: TargetName) =>
      results.scenarios[metric.scenario as ScenarioName]?.[t]?.proxyCpuUsPerRequest;
    const cpuNote = metric.run === "closed" && cpu("sovra") !== undefined &&
        cpu("bare-proxy") !== undefined
      ? `; CPU/req ${us(cpu("sovra")!)} / ${us(cpu("bare-proxy")!)}`
      : "";
    const measured = Number.isFinite(r)
      ? `${asShare ? `${Math.round(r * 100)} %` : `${fmt(r)}×`} (${metric.show(sovra)} / ${
        metric.show(bare)
      }${cpuNote})`
      : "–";
    const ok = errorsOf(results, metric, "sovra") === 0;
    const why = unsteady(results, metric.scenario, ["sovra", "bare-proxy"]) ??
      starved(results, metric, ["sovra", "bare-proxy"]);
    rows.push({
      name,
      measured: why === undefined ? measured : `${measured} (${why})`,
      limit: metric.better === "lower"
        ? `≤ ${limit}×`
        : `≥ ${asShare ? `${limit * 100} %` : `${limit}×`}`,
      met: Number.isFinite(r) && why === undefined
        ? (metric.better === "lower" ? r <= limit : r >= limit) && ok
        : undefined,
    });
  };
  const added = (metric: Metric, limit: number, name: string) => {
    const v = metric.of(results, "sovra");
    const bare = metric.of(results, "bare-proxy");
    rows.push({
      name,
      measured: Number.isFinite(v) ? `${metric.show(v)} (bare proxy ${metric.show(bare)})` : "–",
      limit: `≤ ${limit} ms`,
      met: Number.isFinite(v) ? v <= limit && errorsOf(results, metric, "sovra") === 0 : undefined,
    });
  };
  const [prodStreamCpu, prodNonStreamCpu, prodStreamFirst, prodNonStreamFirst, prodMemory] =
    METRICS;
  vsBare(
    prodStreamCpu!,
    L.prodCpuRatio,
    "production-shaped: CPU per streamed request ÷ bare proxy",
  );
  vsBare(
    prodNonStreamCpu!,
    L.prodCpuRatio,
    "production-shaped: CPU per non-stream request ÷ bare proxy",
  );
  added(
    prodStreamFirst!,
    L.prodAddedFirstByteP99Ms,
    "production-shaped stream: added first byte p99",
  );
  added(
    prodNonStreamFirst!,
    L.prodAddedFirstByteP99Ms,
    "production-shaped non-stream: added first byte p99",
  );
  vsBare(prodMemory!, L.prodMemoryRatio, "production-shaped: memory per open stream ÷ bare proxy");
  vsBare(METRICS[5]!, L.instantNonStreamShare, "instant: non-stream req/s ÷ bare proxy", true);
  vsBare(METRICS[6]!, L.instantStreamShare, "instant: stream req/s ÷ bare proxy", true);
  const rate = results.settings.pacedRate;
  added(METRICS[7]!, L.pacedStreamAddedP99Ms, `instant: ${rate} paced streams/s, added p99`);
  if (rate < L.pacedStreams && rows.at(-1)!.met === true) {
    // The row holds at the rate it was run at; the target's rate is 500.
    rows.at(-1)!.met = undefined;
    rows.at(-1)!.limit += ` at ${L.pacedStreams}/s`;
  }
  return rows;
}

/** Sovra against each peer that ran, on every row: better or equal, or the peer could not serve. */
function peerRows(results: BenchResults): TargetRow[] {
  const rows: TargetRow[] = [];
  for (
    const [peer, info] of Object.entries(results.peers) as Array<
      [PeerName, BenchResults["peers"][PeerName]]
    >
  ) {
    if (!info || info.skipped !== undefined) continue;
    for (const metric of METRICS) {
      const sovra = metric.of(results, "sovra");
      let theirs = metric.of(results, peer);
      const failed = info.failed?.[metric.scenario];
      const name = `ahead of ${peer}: ${metric.name}`;
      const limit = metric.better === "lower" ? "Sovra ≤ peer" : "Sovra ≥ peer";
      if (failed !== undefined && Number.isFinite(sovra)) {
        rows.push({
          name,
          measured: `${metric.show(sovra)} / peer could not serve it`,
          limit,
          met: errorsOf(results, metric, "sovra") === 0,
        });
        continue;
      }
      const peerErrors = errorsOf(results, metric, peer);
      // A peer that ran and answered nothing in full is behind on every row of the scenario
      // (what it held meanwhile, memory included, is not a cost of serving).
      const none = ranIn(results, metric.scenario, peer) && peerErrors > 0 &&
        (Number.isNaN(theirs) ||
          results.production?.scenarios[metric.scenario as ProductionScenario]?.[peer]?.ok === 0);
      if (none) theirs = metric.better === "lower" ? Infinity : 0;
      const comparable = Number.isFinite(sovra) && !Number.isNaN(theirs);
      const ahead = metric.better === "lower" ? sovra <= theirs : sovra >= theirs;
      rows.push({
        name,
        measured: comparable
          ? `${metric.show(sovra)} / ${none ? "none answered in full" : metric.show(theirs)}` +
            (peerErrors > 0 ? ` (peer: ${peerErrors.toLocaleString("en-US")} errors)` : "")
          : "–",
        limit,
        met: comparable ? ahead && errorsOf(results, metric, "sovra") === 0 : undefined,
      });
    }
  }
  return rows;
}

export function targetRows(results: BenchResults): TargetRow[] {
  return [...ownRows(results), ...peerRows(results)];
}

export function renderTargets(results: BenchResults, lines: string[]): void {
  lines.push(
    "",
    "Targets (ratios and differences within this run; Sovra / bare proxy, or Sovra / peer):",
    "",
    "| Target | Measured | Limit | Result |",
    "|---|--:|--:|---|",
  );
  for (const row of targetRows(results)) {
    const result = row.met === undefined ? "not measured" : row.met ? "met" : "missed";
    lines.push(`| ${row.name} | ${row.measured} | ${row.limit} | ${result} |`);
  }
}
