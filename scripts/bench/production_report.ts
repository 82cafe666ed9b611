/**
 * The production-shaped scenarios in the report: what each target cost per request, per
 * streamed chunk and per open request, its first byte against direct's, and whether the proxy's
 * or the load core was saturated (then the row measures the core, not the code).
 */
import type { ProductionTargetResult } from "./measure.ts";
import type { ProductionResults } from "./report.ts";
import type { ThreadGroup } from "./processes.ts";

/** Above this share of its core over the window a process limited the run. */
export const SATURATED_SHARE = 0.9;

/**
 * Proxy CPU (every thread) in the window ÷ the answers completed in full in it (in a steady state
 * the window does the work of as many requests as it completes; a target that fails requests is
 * charged its CPU over the ones it served). NaN without a proxy.
 */
export function cpuPerRequestUs(r: ProductionTargetResult): number {
  if (r.proxyCpuSeconds === undefined) return NaN;
  return r.ok > 0 ? r.proxyCpuSeconds * 1e6 / r.ok : Infinity;
}

/** Proxy CPU in the window ÷ the SSE events the clients received in it (the per-request work included). */
export function cpuPerChunkUs(r: ProductionTargetResult): number {
  if (r.proxyCpuSeconds === undefined) return NaN;
  return r.chunks > 0 ? r.proxyCpuSeconds * 1e6 / r.chunks : Infinity;
}

/** (Mean RSS in the window − RSS idle before it) ÷ the mean number of open requests, KiB. */
export function kbPerOpen(r: ProductionTargetResult): number {
  if (r.windowKb === undefined || r.idleKb === undefined || r.meanOpen <= 0) return NaN;
  return (r.windowKb - r.idleKb) / r.meanOpen;
}

/** CPU per request of one thread group, µs. */
export function threadCpuPerRequestUs(r: ProductionTargetResult, group: ThreadGroup): number {
  const seconds = r.proxyThreadCpuSeconds?.[group];
  return seconds === undefined || r.ok <= 0 ? NaN : seconds * 1e6 / r.ok;
}

/** The target's first-byte percentile minus direct's, ms. */
export function addedFirstByteMs(
  r: ProductionTargetResult,
  direct: ProductionTargetResult | undefined,
  pick: "p50" | "p99",
): number {
  // A run without one answer in full has no percentiles (NaN, null once through JSON).
  const own = r.ttfb[pick];
  const theirs = direct?.ttfb[pick];
  return typeof own === "number" && typeof theirs === "number" ? own - theirs : NaN;
}

/** The share of its core the proxy used in the window. */
export function proxyShare(r: ProductionTargetResult): number {
  return r.proxyCpuSeconds === undefined ? NaN : r.proxyCpuSeconds / r.durationSeconds;
}

/**
 * wrk's mean response time ÷ the upstream's own answer time: above ~1.2 the answers were held up
 * on the way (a saturated or starved core), and the figures are those of a backlog.
 */
export function stretch(r: ProductionTargetResult, upstreamSeconds: number): number {
  return r.wrk.latencyMeanMs / 1000 / upstreamSeconds;
}

/**
 * Whether the window saw a steady state: the warm-up lasted at least two mean response times
 * (otherwise the first answers of the ramp were still to complete and the window counted few).
 */
export function steady(r: ProductionTargetResult, warmupSeconds: number): boolean {
  return r.wrk.latencyMeanMs / 1000 * 2 <= warmupSeconds;
}

/** The share of the load core the generator and the upstream used in the window. */
export function loadShare(r: ProductionTargetResult): number {
  return r.loadCpuSeconds / r.durationSeconds;
}

const fmt = (n: number, digits = 2) => Number.isFinite(n) ? n.toFixed(digits) : "–";
const int = (n: number) => Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–";
const pct = (n: number) => Number.isFinite(n) ? `${Math.round(n * 100)} %` : "–";
const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${fmt(a / b)}×` : "–";

export function renderProduction(production: ProductionResults | undefined, lines: string[]) {
  if (!production) return;
  const t = production.timing;
  lines.push(
    "",
    `Production-shaped (fresh process per target; upstream: nginx with the echo module on the ` +
      `load core, the simulator's answers): streams whose first chunk comes ${t.firstMs} ms ` +
      `after the request and then ${t.chunks} chunks ${t.gapMs} ms apart (44 SSE events, ${
        (t.firstMs + t.chunks * t.gapMs) / 1000
      } s), non-stream answers after ${t.answerMs} ms. Load: wrk holds ~${
        int(production.open)
      } requests open (the connections' first requests spread over one answer's time, then ` +
      `each sends its next request 0–${production.maxDelayMs} ms after the previous answer, ` +
      "so arrivals stay spread evenly), and an open-loop probe paced " +
      `beside it measures the first byte (from the scheduled send). ${production.warmupSeconds} ` +
      `s to fill, then a ${production.durationSeconds} s window. CPU per request = the proxy's ` +
      "CPU (every thread) in the window ÷ the answers completed in full in it; per chunk = ÷ " +
      "their SSE events (per-request work included); memory = (mean RSS in the window − RSS " +
      "before the load) ÷ mean open requests (wrk's connections × their share of time with a " +
      "request out, and the probe's); response ÷ upstream's = wrk's mean response time ÷ the " +
      "upstream's own (well above 1: answers were held up on a saturated or starved core; " +
      "not steady: the warm-up was shorter than two response times, so the window counted the " +
      "ramp's first answers late and its per-request figures are too high); busy = " +
      `share of its core (≥ ${SATURATED_SHARE * 100} %: that core limited the row).`,
    "",
    "| Scenario | Target | req/s | open | response ÷ upstream's | CPU/req | ÷ bare | CPU/chunk | " +
      "÷ bare | first byte p50 / p99 | added p50 / p99 | memory per open | ÷ bare | proxy busy | " +
      "load core busy | errors |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  );
  for (const [scenario, targets] of Object.entries(production.scenarios)) {
    const direct = targets?.direct;
    const bare = targets?.["bare-proxy"];
    for (const [name, r] of Object.entries(targets ?? {})) {
      const stream = scenario === "prod-stream";
      const proxied = name !== "direct";
      const vsBare = name !== "bare-proxy" && bare !== undefined;
      const upstream = stream ? (t.firstMs + t.chunks * t.gapMs) / 1000 : t.answerMs / 1000;
      const held = `${fmt(stretch(r, upstream))}×${
        steady(r, production.warmupSeconds) ? "" : " (not steady)"
      }`;
      lines.push(
        `| ${scenario} | ${name} | ${int(r.requestsPerSecond)} | ${int(r.meanOpen)} | ${held} | ` +
          `${proxied ? `${fmt(cpuPerRequestUs(r), 0)} µs` : "–"} | ` +
          `${proxied && vsBare ? ratio(cpuPerRequestUs(r), cpuPerRequestUs(bare)) : "–"} | ` +
          `${proxied && stream ? `${fmt(cpuPerChunkUs(r), 1)} µs` : "–"} | ` +
          `${proxied && stream && vsBare ? ratio(cpuPerChunkUs(r), cpuPerChunkUs(bare)) : "–"} | ` +
          `${fmt(r.ttfb.p50)} / ${fmt(r.ttfb.p99)} ms | ` +
          `${
            proxied
              ? `${fmt(addedFirstByteMs(r, direct, "p50"))} / ${
                fmt(addedFirstByteMs(r, direct, "p99"))
              } ms`
              : "–"
          } | ` +
          `${proxied ? `${fmt(kbPerOpen(r), 0)} KiB` : "–"} | ` +
          `${proxied && vsBare ? ratio(kbPerOpen(r), kbPerOpen(bare)) : "–"} | ` +
          `${proxied ? pct(proxyShare(r)) : "–"} | ${pct(loadShare(r))} | ${r.errors} |`,
      );
    }
  }
  // Where Sovra's CPU went, by thread: the main isolate's JS (what a CPU profile sees), the KV
  // writer, V8's GC and compiler helpers, tokio's socket threads.
  const rows: string[] = [];
  for (const [scenario, targets] of Object.entries(production.scenarios)) {
    for (const [name, r] of Object.entries(targets ?? {})) {
      if (!r.proxyThreadCpuSeconds) continue;
      const per = (g: ThreadGroup) => fmt(threadCpuPerRequestUs(r, g), 0);
      rows.push(
        `| ${scenario} | ${name} | ${per("main")} | ${per("kv")} | ${per("v8")} | ` +
          `${per("io")} | ${per("workers")} |`,
      );
    }
  }
  if (rows.length > 0) {
    lines.push(
      "",
      "CPU per request by thread (µs; main = the isolate's JavaScript and the ops it runs, kv = " +
        "the Deno KV writer, v8 = V8's GC and compiler helpers, io = tokio's threads):",
      "",
      "| Scenario | Target | main | kv | v8 | io | worker isolates |",
      "|---|---|--:|--:|--:|--:|--:|",
      ...rows,
    );
  }
}
