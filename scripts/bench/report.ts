/**
 * Turns the measurements into the markdown the runner prints and writes into
 * docs/performance.md (between the `bench:begin` / `bench:end` markers, so the hand-written
 * analysis around them survives a re-run).
 */
import type { ClosedResult } from "./closed_load.ts";
import type { PacedResult } from "./paced_load.ts";
import type { LatencySummary } from "./latency_stats.ts";
import type { ProductionScenario, ScenarioName, TargetName } from "./workload.ts";
import type { PeerName } from "./peers.ts";
import type { ProductionTargetResult } from "./measure.ts";
import type { ThreadGroup } from "./processes.ts";
import type { ProductionTiming } from "./production_upstream.ts";
import { renderProduction } from "./production_report.ts";
import { renderTargets } from "./targets.ts";
import { type BaselineResults, median, roundRatios, type SideBySideRound } from "./baseline.ts";

export interface TargetResult {
  /** Closed-loop throughput (not run for the slow-upstream scenario). */
  closed?: ClosedResult;
  paced: PacedResult;
  /** The proxy's event-loop delay during the paced run (loop_delay.ts). */
  loopDelay?: LatencySummary;
  /** CPU time (µs, all threads) the proxy process spent per request in the closed loop. */
  proxyCpuUsPerRequest?: number;
  /** Sovra's group commits per request (and writes per commit): closed loop, paced run. */
  commits?: { closedPerRequest?: number; pacedPerRequest?: number; writesPerCommit?: number };
}

export interface OpenStreamsResult {
  requested: number;
  open: number;
  completed: number;
  errors: number;
  /** RSS of the fresh process before the streams were opened, KiB. */
  beforeKb: number;
  /** Highest RSS sampled while they were open, KiB. */
  whileOpenKb: number;
}

/** The spread-out streaming scenario (spread_streams.ts) for one target. */
export interface SpreadTargetResult {
  streams: number;
  chunks: number;
  completed: number;
  errors: number;
  seconds: number;
  /** CPU time (user + system, every thread) of the proxy in the window. */
  proxyCpuSeconds: number;
  proxyCpuUsPerChunk: number;
}

export interface BenchResults {
  date: string;
  machine: { nproc: number; cpu: string; kernel: string; loadAverage: string };
  settings: {
    connections: number;
    warmupSeconds: number;
    closedSeconds: number;
    pacedRate: number;
    /** Paced rate of the slow-upstream scenario. */
    slowRate?: number;
    pacedSeconds: number;
    closedTool: ClosedResult["tool"];
    sovraKv: string;
  };
  scenarios: Partial<Record<ScenarioName, Partial<Record<TargetName, TargetResult>>>>;
  /**
   * `--peers`: each peer's version, or why it was skipped (install or start failed), and the
   * scenarios it could not serve (its smoke test's answer).
   */
  peers: Partial<
    Record<PeerName, { version?: string; skipped?: string; failed?: Record<string, string> }>
  >;
  /**
   * Many concurrent streams with chunks 20 ms apart: CPU per streamed chunk (absent when
   * `--spread-streams 0`).
   */
  spread?: {
    streams: number;
    gapMs: number;
    targets: Partial<Record<"bare-proxy" | "sovra" | "sovra-unguarded", SpreadTargetResult>>;
  };
  /** `SOVRA_WORKERS` 1 and 2, both unpinned: non-stream closed-loop throughput. */
  workers?: Partial<Record<1 | 2, WorkersResult>>;
  /** The production-shaped scenarios (production_load.ts), fresh processes per target. */
  production?: ProductionResults;
  /**
   * The gate's steps per request with the process-wide limit table and without it, and a
   * message round trip to an authority isolate (`shared_limits_cost.ts`).
   */
  sharedLimits?: { local_ns: number; shared_ns: number; authority_round_trip_us: number };
  /** Sovra's VmHWM after the throughput and latency runs, KiB. */
  sovraPeakKb: number | undefined;
  openStreams: Partial<Record<"sovra" | "sovra-unguarded" | "bare-proxy", OpenStreamsResult>>;
  /** `--baseline`: this checkout and earlier code loaded side by side (baseline.ts). */
  baseline?: BaselineResults;
}

/** One `SOVRA_WORKERS` count: closed-loop throughput and what the process used meanwhile. */
export interface WorkersResult extends ClosedResult {
  /** The closed loop's length, s (the CPU bracket around it). */
  seconds?: number;
  /** CPU of the Sovra process (every thread) over the closed loop, s. */
  cpuSeconds?: number;
  threadCpuSeconds?: Record<ThreadGroup, number>;
}

export interface ProductionResults {
  timing: ProductionTiming;
  /** Requests meant to be open at once (wrk's connections and the probe's share). */
  open: number;
  /** wrk's pause before each next request on a connection: 0 to this, ms. */
  maxDelayMs: number;
  warmupSeconds: number;
  durationSeconds: number;
  scenarios: Partial<
    Record<ProductionScenario, Partial<Record<TargetName, ProductionTargetResult>>>
  >;
}

export interface Check {
  name: string;
  measured: string;
  target: string;
  pass: boolean;
}

export const LIMITS = {
  /** SOVRA_WORKERS=2 ÷ one isolate, unpinned. */
  minWorkersScaling: 1.7,
  /** Added p50 at the paced rate: ≤ 0.5 ms for non-stream, ≤ 1 ms otherwise. */
  addedP50Ms: { "non-stream": 0.5, default: 1 },
  addedP99Ms: 3,
  addedTtfbMs: 1,
  loopDelayP99Ms: 2,
  /**
   * Sovra ÷ bare proxy req/s in the scenarios the targets table has no row for (the router's);
   * non-stream and stream are the targets table's (targets.ts).
   */
  minRatio: { default: 0.5 },
  maxOpenStreamsMiB: 150,
  /** Sovra's RSS increment per open stream ÷ the bare proxy's. */
  maxPerStreamRatio: 1.5,
  /**
   * CPU per request ÷ the `--baseline` reference's, median of the side-by-side rounds (no
   * regression). Builds of equal cost read 0.98–1.02 a round side by side.
   */
  maxBaselineRatio: 1.05,
};

/** A limit that differs by scenario: the scenario's own, else the default. */
export function limitFor(
  limit: { default: number; [scenario: string]: number },
  scenario: string,
): number {
  return limit[scenario] ?? limit.default;
}

/** RSS increment per open stream over the idle process, KiB. */
export function perStreamKb(o: OpenStreamsResult): number {
  return o.open > 0 ? (o.whileOpenKb - o.beforeKb) / o.open : NaN;
}

/** The Sovra targets the limits apply to. */
const SOVRAS = ["sovra", "sovra-unguarded"] as const;

const mib = (kb: number) => kb / 1024;
const fmt = (n: number, digits = 2) => Number.isFinite(n) ? n.toFixed(digits) : "–";
const cpu = (us: number | undefined) => us === undefined ? "–" : `${fmt(us, 0)} µs`;
const int = (n: number) => Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–";
const ms = (n: number | undefined) => n === undefined ? "–" : `${fmt(n)} ms`;

export function checks(results: BenchResults): Check[] {
  const out: Check[] = [];
  for (const [scenario, targets] of Object.entries(results.scenarios)) {
    const direct = targets?.direct;
    const bare = targets?.["bare-proxy"];
    for (const name of SOVRAS) {
      const sovra = targets?.[name];
      if (!sovra) continue;
      const label = `${scenario}, ${name}`;
      if (direct && scenario === "slow-upstream") {
        const added = sovra.paced.ttfb.p50 - direct.paced.ttfb.p50;
        out.push({
          name: `${label}: added time to first byte (p50), upstream 50 ms to first token`,
          measured: ms(added),
          target: `≤ ${LIMITS.addedTtfbMs} ms`,
          pass: added <= LIMITS.addedTtfbMs && sovra.paced.errors === 0,
        });
        continue;
      }
      const rate = results.settings.pacedRate;
      const addedP50Limit = limitFor(LIMITS.addedP50Ms, scenario);
      const minRatio = limitFor(LIMITS.minRatio, scenario);
      if (direct) {
        const p50 = sovra.paced.latency.p50 - direct.paced.latency.p50;
        const p99 = sovra.paced.latency.p99 - direct.paced.latency.p99;
        out.push({
          name: `${label}: added p50 at ${rate} req/s`,
          measured: ms(p50),
          target: `≤ ${addedP50Limit} ms`,
          pass: p50 <= addedP50Limit && sovra.paced.errors === 0,
        });
        out.push({
          name: `${label}: added p99 at ${rate} req/s`,
          measured: ms(p99),
          target: `≤ ${LIMITS.addedP99Ms} ms`,
          pass: p99 <= LIMITS.addedP99Ms && sovra.paced.errors === 0,
        });
      }
      if (sovra.loopDelay) {
        out.push({
          name: `${label}: event-loop delay p99 at ${rate} req/s`,
          measured: ms(sovra.loopDelay.p99),
          target: `≤ ${LIMITS.loopDelayP99Ms} ms`,
          pass: sovra.loopDelay.p99 <= LIMITS.loopDelayP99Ms,
        });
      }
      // Non-stream and stream req/s ÷ the bare proxy's are rows of the targets table.
      if (bare?.closed && sovra.closed && scenario !== "non-stream" && scenario !== "stream") {
        const ratio = sovra.closed.requestsPerSecond / bare.closed.requestsPerSecond;
        out.push({
          name: `${label}: ÷ bare proxy req/s at ${results.settings.connections} connections`,
          measured: `${fmt(ratio * 100, 0)} %`,
          target: `≥ ${minRatio * 100} %`,
          pass: ratio >= minRatio && sovra.closed.errors === 0,
        });
      }
    }
  }
  out.push(...baselineChecks(results));
  const one = results.workers?.[1];
  const two = results.workers?.[2];
  if (one && two) {
    const ratio = two.requestsPerSecond / one.requestsPerSecond;
    out.push({
      name: "non-stream: SOVRA_WORKERS=2 ÷ 1 req/s, unpinned",
      measured: `${fmt(ratio)}×`,
      target: `≥ ${LIMITS.minWorkersScaling}×`,
      pass: ratio >= LIMITS.minWorkersScaling && two.errors === 0,
    });
  }
  const streams = results.openStreams.sovra;
  if (streams) {
    out.push({
      name: `Sovra RSS with ${int(streams.requested)} open streams`,
      measured: `${fmt(mib(streams.whileOpenKb), 0)} MiB`,
      target: `≤ ${LIMITS.maxOpenStreamsMiB} MiB`,
      pass: mib(streams.whileOpenKb) <= LIMITS.maxOpenStreamsMiB &&
        streams.open === streams.requested,
    });
    const bareStreams = results.openStreams["bare-proxy"];
    if (bareStreams) {
      const ratio = perStreamKb(streams) / perStreamKb(bareStreams);
      out.push({
        name: "Sovra ÷ bare proxy RSS increment per open stream",
        measured: `${fmt(ratio)}×`,
        target: `≤ ${LIMITS.maxPerStreamRatio}×`,
        pass: ratio <= LIMITS.maxPerStreamRatio && streams.open === streams.requested,
      });
    }
  }
  return out;
}

/** The targets this checkout serves in the side-by-side comparison. */
const OURS_SIDE_BY_SIDE = ["sovra-unguarded", "sovra-no-admission-wait"];

/** Each side-by-side target's CPU per request ÷ the reference's: per-window ratios. */
function baselineRatios(
  baseline: BaselineResults,
  rounds: readonly SideBySideRound[],
  target: string,
): number[] | undefined {
  const i = baseline.targets.indexOf(target);
  const ref = baseline.targets.indexOf(baseline.reference);
  return i < 0 || ref < 0 || i === ref ? undefined : roundRatios(rounds, i, ref);
}

/** No regression against the reference: this checkout's median window ratio ≤ the limit. */
function baselineChecks(results: BenchResults): Check[] {
  const baseline = results.baseline;
  if (!baseline) return [];
  const out: Check[] = [];
  for (const side of baseline.cases) {
    const scenario = side.name;
    for (const target of OURS_SIDE_BY_SIDE) {
      const ratios = baselineRatios(baseline, side.rounds, target);
      if (!ratios) continue;
      const ratio = median(ratios);
      const i = baseline.targets.indexOf(target);
      const errors = side.rounds.reduce((sum, r) => sum + r.errors[i]!, 0);
      out.push({
        name: `${scenario}: ${target} ÷ ${baseline.reference} CPU/req, side by side at ` +
          `${baseline.rate} req/s (median of ${ratios.length} windows)`,
        measured: `${fmt(ratio)}×`,
        target: `≤ ${LIMITS.maxBaselineRatio}×`,
        pass: ratio <= LIMITS.maxBaselineRatio && errors === 0,
      });
    }
  }
  return out;
}

function renderBaseline(results: BenchResults, lines: string[]): void {
  const baseline = results.baseline;
  if (!baseline) return;
  const ref = baseline.reference;
  const alone = results.settings.pacedRate;
  lines.push(
    "",
    `Against earlier code (\`--baseline\`): ${baseline.targets.join(", ")} paced at ` +
      `${baseline.rate} req/s each at the same time, all on the proxy core, ` +
      `${baseline.rounds} windows of ${baseline.durationSeconds} s after ` +
      `${baseline.warmupSeconds} s warm-up; ratio = CPU per request ÷ ${ref}'s in the same ` +
      "window (median, lowest–highest). `sovra-no-admission-wait` is this checkout with " +
      "answers not waiting for a durable admission record (what that record costs on its own). " +
      "`upstream N ms`: the simulator waits N ms before every chat answer, as a model's first " +
      `token comes. Alone: each target by itself at ${alone} req/s.`,
    "",
    `| Scenario | Target | CPU/req | ÷ ${ref} | p50 side by side | p50 alone | p99 alone | ` +
      "errors |",
    "|---|---|--:|--:|--:|--:|--:|--:|",
  );
  for (const side of baseline.cases) {
    const scenario = side.name;
    baseline.targets.forEach((target, i) => {
      const sorted = baselineRatios(baseline, side.rounds, target)?.filter(Number.isFinite)
        .sort((a, b) => a - b);
      const ratio = sorted && sorted.length > 0
        ? `${fmt(median(sorted))}× (${fmt(sorted[0]!)}–${fmt(sorted.at(-1)!)})`
        : "–";
      const paced = side.paced[target];
      const errors = side.rounds.reduce((sum, r) => sum + r.errors[i]!, 0) +
        (paced?.errors ?? 0);
      lines.push(
        `| ${scenario} | ${target} | ` +
          `${cpu(median(side.rounds.map((r) => r.cpuUsPerRequest[i]!)))} | ${ratio} | ` +
          `${ms(median(side.rounds.map((r) => r.p50Ms[i]!)))} | ` +
          `${ms(paced?.latency.p50)} | ${ms(paced?.latency.p99)} | ${errors} |`,
      );
    });
  }
}

/** The peers measured in a scenario (targets other than ours). */
function peersIn(
  targets: Partial<Record<TargetName, TargetResult>> | undefined,
): Array<[PeerName, TargetResult]> {
  return Object.entries(targets ?? {}).filter(([name]) =>
    name === "portkey" || name === "litellm"
  ) as Array<[PeerName, TargetResult]>;
}

/** Sovra ÷ each peer, per scenario: throughput, CPU per request, paced latency. */
function renderPeers(results: BenchResults, lines: string[]): void {
  const entries = Object.entries(results.peers);
  if (entries.length === 0) return;
  lines.push(
    "",
    "Peers (`--peers`): " +
      entries.map(([name, p]) =>
        p.skipped !== undefined ? `${name} skipped (${p.skipped})` : `${name} ${p.version}` +
          (p.failed
            ? ` (could not serve ${
              Object.entries(p.failed).map(([s, why]) => `${s}: ${why.slice(0, 200)}`).join("; ")
            })`
            : "")
      ).join(", ") + ". Sovra ÷ peer: above 1 means Sovra serves more (req/s) or costs more " +
      "(CPU, latency).",
    "",
    "| Scenario | Peer | peer req/s | Sovra ÷ peer req/s | peer CPU/req | Sovra ÷ peer CPU/req | " +
      "peer paced p50 | Sovra ÷ peer p50 | peer paced p99 | Sovra ÷ peer p99 | errors |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  );
  for (const [scenario, targets] of Object.entries(results.scenarios)) {
    const sovra = targets?.sovra;
    if (!sovra) continue;
    for (const [peer, r] of peersIn(targets)) {
      // A peer that served nothing (0 req/s) has no ratio.
      const ratio = (a: number | undefined, b: number | undefined) =>
        a === undefined || b === undefined || !Number.isFinite(a / b) || b === 0
          ? "–"
          : `${fmt(a / b)}×`;
      lines.push(
        `| ${scenario} | ${peer} | ${r.closed ? int(r.closed.requestsPerSecond) : "–"} | ` +
          `${ratio(sovra.closed?.requestsPerSecond, r.closed?.requestsPerSecond)} | ` +
          `${cpu(r.proxyCpuUsPerRequest)} | ` +
          `${ratio(sovra.proxyCpuUsPerRequest, r.proxyCpuUsPerRequest)} | ` +
          `${ms(r.paced.latency.p50)} | ${ratio(sovra.paced.latency.p50, r.paced.latency.p50)} | ` +
          `${ms(r.paced.latency.p99)} | ${ratio(sovra.paced.latency.p99, r.paced.latency.p99)} | ` +
          `${(r.closed?.errors ?? 0) + r.paced.errors} |`,
      );
    }
  }
}

function renderSpread(results: BenchResults, lines: string[]): void {
  const spread = results.spread;
  if (!spread) return;
  const bare = spread.targets["bare-proxy"];
  lines.push(
    "",
    `Spread-out streams: ${int(spread.streams)} concurrent streams, ${spread.gapMs} ms between ` +
      "chunks (50 content chunks each, a finished stream replaced at once); proxy CPU (every " +
      "thread) per SSE event the clients received:",
    "",
    "| Target | events/s | streams completed | errors | proxy CPU | CPU per event | ÷ bare proxy |",
    "|---|--:|--:|--:|--:|--:|--:|",
  );
  for (const [name, r] of Object.entries(spread.targets)) {
    const ratio = bare && name !== "bare-proxy"
      ? `${fmt(r.proxyCpuUsPerChunk / bare.proxyCpuUsPerChunk)}×`
      : "–";
    lines.push(
      `| ${name} | ${int(r.chunks / r.seconds)} | ${int(r.completed)} | ${r.errors} | ` +
        `${fmt(r.proxyCpuSeconds)} s | ${fmt(r.proxyCpuUsPerChunk, 1)} µs | ${ratio} |`,
    );
  }
}

/** Cores a figure is extrapolated to (an operator's machine). */
export const EXTRAPOLATE_CORES = 16;

/**
 * Throughput per core Sovra used, for each isolate count, and the figure extrapolated to
 * `EXTRAPOLATE_CORES` cores: the 2-isolate throughput per core used, times the cores (what it
 * would be if every further isolate served as many requests per core-second as the second
 * does). undefined when the row was not run or its CPU was not read.
 */
export function workersScaling(results: BenchResults):
  | { perCore1: number; perCore2: number; efficiency: number; extrapolated: number }
  | undefined {
  const one = results.workers?.[1];
  const two = results.workers?.[2];
  if (!one?.cpuSeconds || !two?.cpuSeconds || !one.seconds || !two.seconds) return undefined;
  const perCore1 = one.requestsPerSecond / (one.cpuSeconds / one.seconds);
  const perCore2 = two.requestsPerSecond / (two.cpuSeconds / two.seconds);
  return {
    perCore1,
    perCore2,
    efficiency: perCore2 / perCore1,
    extrapolated: perCore2 * EXTRAPOLATE_CORES,
  };
}

function renderWorkers(results: BenchResults, lines: string[]): void {
  if (!results.workers) return;
  const s = results.settings;
  lines.push(
    "",
    `\`SOVRA_WORKERS\` (fresh processes, unpinned: every core, shared with the load ` +
      "generator and the simulator, each its own process), non-stream closed loop; cores = " +
      "the Sovra process's CPU (every thread) ÷ the loop's length; CPU per request by thread " +
      "(µs: isolates' JavaScript main / workers, kv = Deno KV writers, v8 = GC and compiler " +
      "helpers, io = tokio):",
    "",
    `| SOVRA_WORKERS | req/s (${s.connections} conn) | cores used | req/s per core | ` +
      "CPU/req | main / workers / kv / v8 / io | errors |",
    "|--:|--:|--:|--:|--:|--:|--:|",
  );
  for (const [count, r] of Object.entries(results.workers)) {
    const cores = r.cpuSeconds !== undefined && r.seconds ? r.cpuSeconds / r.seconds : NaN;
    const per = (seconds: number | undefined) =>
      seconds === undefined || r.requests <= 0 ? "–" : fmt(seconds * 1e6 / r.requests, 0);
    const t = r.threadCpuSeconds;
    lines.push(
      `| ${count} | ${int(r.requestsPerSecond)} | ${fmt(cores)} | ` +
        `${int(r.requestsPerSecond / cores)} | ${
          cpu(
            r.cpuSeconds === undefined ? undefined : r.cpuSeconds * 1e6 / r.requests,
          )
        } | ` +
        `${t ? [t.main, t.workers, t.kv, t.v8, t.io].map(per).join(" / ") : "–"} | ${r.errors} |`,
    );
  }
  const scaling = workersScaling(results);
  if (scaling) {
    lines.push(
      "",
      `Per core used, 2 isolates serve ${fmt(scaling.efficiency * 100, 0)} % of what one ` +
        `does (${int(scaling.perCore2)} against ${int(scaling.perCore1)} req/s per core). ` +
        `Extrapolated to ${EXTRAPOLATE_CORES} cores given to Sovra alone (load elsewhere), at ` +
        `the 2-isolate figure per core: about ${int(scaling.extrapolated)} req/s, an upper ` +
        'bound: every isolate commits to the same store (docs/performance.md, "Every core ' +
        'used").',
    );
  }
}

export function renderMarkdown(results: BenchResults): string {
  const s = results.settings;
  const lines: string[] = [];
  lines.push(
    `Run of ${results.date} on ${results.machine.nproc} × ${results.machine.cpu}, ` +
      `Linux ${results.machine.kernel}, load average at start ${results.machine.loadAverage}. ` +
      `Closed loop: ${s.closedTool}, ${s.connections} connections, ${s.closedSeconds} s after ` +
      `${s.warmupSeconds} s warm-up. Paced: open loop at ${s.pacedRate} req/s ` +
      `(slow-upstream: ${s.slowRate ?? "–"} req/s) for ${s.pacedSeconds} s. ` +
      `Sovra state: ${s.sovraKv}. Sovra has no connection layer of its own (its connection limits are the front proxy's).`,
  );
  renderTargets(results, lines);
  lines.push(
    "",
    "Instant upstream (the simulator answering at once: the fixed cost of a request):",
    "",
    `| Scenario | Target | req/s (${s.connections} conn) | ÷ bare proxy | proxy CPU/req | errors |`,
    "|---|---|--:|--:|--:|--:|",
  );
  for (const [scenario, targets] of Object.entries(results.scenarios)) {
    const bare = targets?.["bare-proxy"];
    for (const [name, r] of Object.entries(targets ?? {})) {
      if (!r.closed) continue;
      const ratio = bare?.closed && name.startsWith("sovra")
        ? `${fmt((r.closed.requestsPerSecond / bare.closed.requestsPerSecond) * 100, 0)} %`
        : "–";
      lines.push(
        `| ${scenario} | ${name} | ${int(r.closed.requestsPerSecond)} | ${ratio} | ` +
          `${cpu(r.proxyCpuUsPerRequest)} | ${r.closed.errors} |`,
      );
    }
  }
  lines.push(
    "",
    "Latency, paced (open loop; added = the target's percentile minus direct's; TTFB = time " +
      "to the first body byte; loop delay = how late a 5 ms timer in the proxy fired):",
    "",
    "| Scenario | Target | p50 | p99 | added p50 | added p90 | added p99 | added p99.9 | " +
      "TTFB p50 | added TTFB p50 | added TTFB p99 | loop delay p50 / p99 / max | errors |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  );
  for (const [scenario, targets] of Object.entries(results.scenarios)) {
    const direct = targets?.direct;
    for (const [name, r] of Object.entries(targets ?? {})) {
      const added = (pick: "p50" | "p90" | "p99" | "p999", of: "latency" | "ttfb" = "latency") =>
        direct && name !== "direct" ? ms(r.paced[of][pick] - direct.paced[of][pick]) : "–";
      const d = r.loopDelay;
      lines.push(
        `| ${scenario} | ${name} | ${ms(r.paced.latency.p50)} | ${ms(r.paced.latency.p99)} | ` +
          `${added("p50")} | ${added("p90")} | ${added("p99")} | ${added("p999")} | ` +
          `${ms(r.paced.ttfb.p50)} | ${added("p50", "ttfb")} | ${added("p99", "ttfb")} | ` +
          `${d ? `${fmt(d.p50)} / ${fmt(d.p99)} / ${fmt(d.max)} ms` : "–"} | ${r.paced.errors} |`,
      );
    }
  }
  renderPeers(results, lines);
  renderBaseline(results, lines);
  renderSpread(results, lines);
  renderProduction(results.production, lines);
  renderWorkers(results, lines);
  lines.push("", "| Memory | RSS |", "|---|--:|");
  if (results.sovraPeakKb !== undefined) {
    lines.push(
      `| Sovra peak (VmHWM) after the runs above | ${fmt(mib(results.sovraPeakKb), 0)} MiB |`,
    );
  }
  for (const [name, o] of Object.entries(results.openStreams)) {
    lines.push(
      `| ${name}: fresh process, idle | ${fmt(mib(o.beforeKb), 0)} MiB |`,
      `| ${name}: same process with ${int(o.open)} of ${int(o.requested)} streams open ` +
        `(${int(o.completed)} completed, ${int(o.errors)} errors) | ${
          fmt(mib(o.whileOpenKb), 0)
        } MiB |`,
      `| ${name}: increment per open stream | ${fmt(perStreamKb(o), 0)} KiB |`,
    );
  }
  lines.push(
    "",
    "Further checks (the limits of earlier work, kept to catch a regression):",
    "",
    "| Check | Measured | Limit | Result |",
    "|---|--:|--:|---|",
  );
  for (const c of checks(results)) {
    lines.push(`| ${c.name} | ${c.measured} | ${c.target} | ${c.pass ? "PASS" : "MISS"} |`);
  }
  return lines.join("\n") + "\n";
}

export const BEGIN = "<!-- bench:begin (written by `deno task bench`) -->";
export const END = "<!-- bench:end -->";
/** Where `deno task bench --state postgres` writes its tables, beside the KV ones. */
export const POSTGRES_MARKERS = {
  begin: "<!-- bench-postgres:begin (written by `deno task bench --state postgres`) -->",
  end: "<!-- bench-postgres:end -->",
};

/** Replaces the marked section of `doc` (or appends one) with `section`. */
export function replaceSection(
  doc: string,
  section: string,
  markers: { begin: string; end: string } = { begin: BEGIN, end: END },
): string {
  const block = `${markers.begin}\n${section}${markers.end}`;
  const begin = doc.indexOf(markers.begin);
  const end = doc.indexOf(markers.end);
  if (begin >= 0 && end > begin) {
    return doc.slice(0, begin) + block + doc.slice(end + markers.end.length);
  }
  return `${doc.trimEnd()}\n\n${block}\n`;
}
