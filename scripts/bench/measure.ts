/**
 * One measurement each: closed-loop throughput (wrk, or the Deno fallback), open-loop paced
 * latency, and memory with many open streams. Load generators always run in their own
 * process on the load core.
 */
import type { ClosedResult } from "./closed_load.ts";
import type { PacedResult } from "./paced_load.ts";
import {
  type BenchProcess,
  readCpuSeconds,
  readMemory,
  readThreadCpuSeconds,
  spawnDeno,
  type ThreadGroup,
} from "./processes.ts";
import type { OpenStreamsResult, SpreadTargetResult } from "./report.ts";
import type { ProductionResult } from "./production_load.ts";
import type { LatencySummary } from "./latency_stats.ts";
import type { SpreadResult } from "./spread_streams.ts";
import { runWrk, startWrkProduction, type WrkProductionResult } from "./wrk.ts";
import type { RequestSpec } from "./workload.ts";

export interface Layout {
  /** The core of the proxy under test. */
  proxyCpu: number;
  /** The core of the simulator and every load generator. */
  loadCpu: number;
  config: string;
  scriptDir: string;
  tempDir: string;
}

export async function closedLoop(
  layout: Layout,
  spec: RequestSpec,
  options: { tool: ClosedResult["tool"]; connections: number; durationSeconds: number },
): Promise<ClosedResult> {
  if (options.tool === "wrk") {
    return await runWrk(spec, {
      connections: options.connections,
      durationSeconds: options.durationSeconds,
      cpu: layout.loadCpu,
      scriptDir: layout.tempDir,
    });
  }
  const child = await spawnDeno("closed_load", `${layout.scriptDir}/closed_load.ts`, [
    "--spec",
    JSON.stringify(spec),
    "--connections",
    String(options.connections),
    "--duration",
    String(options.durationSeconds),
  ], { cpu: layout.loadCpu, config: layout.config });
  await child.stop();
  return child.hello as unknown as ClosedResult;
}

export async function pacedLoop(
  layout: Layout,
  spec: RequestSpec,
  options: { rate: number; durationSeconds: number; warmupSeconds: number; connections: number },
): Promise<PacedResult> {
  const child = await spawnDeno("paced_load", `${layout.scriptDir}/paced_load.ts`, [
    "--spec",
    JSON.stringify(spec),
    "--rate",
    String(options.rate),
    "--duration",
    String(options.durationSeconds),
    "--warmup",
    String(options.warmupSeconds),
    "--connections",
    String(options.connections),
  ], { cpu: layout.loadCpu, config: layout.config });
  await child.stop();
  return child.hello as unknown as PacedResult;
}

/** Opens `count` slow streams through `proxy`, samples its RSS while they are open. */
export async function openStreams(
  layout: Layout,
  proxy: BenchProcess,
  spec: RequestSpec,
  count: number,
): Promise<OpenStreamsResult> {
  const before = await readMemory(proxy.pid);
  let peak = before.rssKb;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        peak = Math.max(peak, (await readMemory(proxy.pid)).rssKb);
      } catch { /* the process is gone; the caller will notice */ }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const child = await spawnDeno("open_streams", `${layout.scriptDir}/open_streams.ts`, [
    "--spec",
    JSON.stringify(spec),
    "--count",
    String(count),
  ], { cpu: layout.loadCpu, config: layout.config });
  try {
    const opened = child.hello as { open: number };
    const doneLine = await child.nextLine();
    const done = doneLine === undefined
      ? { completed: 0, errors: count }
      : JSON.parse(doneLine) as { completed: number; errors: number };
    return {
      requested: count,
      open: opened.open,
      completed: done.completed,
      errors: done.errors,
      beforeKb: before.rssKb,
      whileOpenKb: peak,
    };
  } finally {
    sampling = false;
    await sampler;
    await child.stop();
  }
}

/**
 * Keeps `streams` spread-out streams open through `proxy` (spread_streams.ts) and reads the
 * proxy's CPU time (every thread) at the start and the end of the measured window.
 */
export async function spreadStreams(
  layout: Layout,
  proxy: BenchProcess,
  spec: RequestSpec,
  options: { streams: number; rampSeconds: number; durationSeconds: number },
): Promise<SpreadTargetResult> {
  const child = await spawnDeno("spread_streams", `${layout.scriptDir}/spread_streams.ts`, [
    "--spec",
    JSON.stringify(spec),
    "--streams",
    String(options.streams),
    "--ramp",
    String(options.rampSeconds),
    "--duration",
    String(options.durationSeconds),
  ], { cpu: layout.loadCpu, config: layout.config });
  try {
    const cpuBefore = await readCpuSeconds(proxy.pid);
    const doneLine = await child.nextLine();
    const cpuAfter = await readCpuSeconds(proxy.pid);
    if (doneLine === undefined) throw new Error("spread_streams ended without a result");
    const result = JSON.parse(doneLine) as SpreadResult;
    const cpuSeconds = cpuAfter - cpuBefore;
    return {
      ...result,
      proxyCpuSeconds: cpuSeconds,
      proxyCpuUsPerChunk: result.chunks > 0 ? cpuSeconds * 1e6 / result.chunks : NaN,
    };
  } finally {
    await child.stop();
  }
}

/** One target in a production-shaped scenario: wrk's load, the probe's latency, the proxy's cost. */
export interface ProductionTargetResult {
  /** The window's length, s. */
  durationSeconds: number;
  /** wrk's connections (each with one request open, or waiting 0–`maxDelayMs` to send one). */
  connections: number;
  /** Answers completed in full inside the window, wrk's and the probe's, per second. */
  requestsPerSecond: number;
  /** Answers completed in full inside the window, wrk's and the probe's. */
  ok: number;
  /** Failed answers in the window, and wrk's errors over the whole run. */
  errors: number;
  /** SSE events of the answers counted in `ok` (0 for non-stream). */
  chunks: number;
  /** Requests open at once: wrk's (its connections' share of time with a request out) and the probe's. */
  meanOpen: number;
  /** Scheduled send → first body byte, the probe's requests (for a stream the upstream's first chunk). */
  ttfb: LatencySummary;
  /** Scheduled send → last byte, the probe's requests. */
  latency: LatencySummary;
  /** How late the probe fired its requests (its own timer jitter on the load core). */
  sendLag: LatencySummary;
  wrk: WrkProductionResult;
  probe: ProductionResult;
  /** The proxy's CPU (every thread) in the window, seconds; absent for `direct`. */
  proxyCpuSeconds?: number;
  /** The same split by thread group (processes.ts `threadGroup`). */
  proxyThreadCpuSeconds?: Record<ThreadGroup, number>;
  /** RSS of the proxy once started and smoke-tested, before the load, KiB. */
  idleKb?: number;
  /** Mean RSS sampled every 200 ms in the window, KiB. */
  windowKb?: number;
  /** CPU of the load core's processes in the window (wrk, the probe, the upstream), seconds. */
  loadCpuSeconds: number;
}

const sleepUntil = (unixMs: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, unixMs - Date.now())));

/**
 * The production-shaped load against `spec` (wrk holding `connections` requests open, the probe
 * paced at `probeRate` beside it), and over a window of whole seconds after `warmupSeconds`: the
 * proxy's CPU (every thread, and by thread group), its mean RSS, and the load core's CPU (above
 * ~90 % of the core the run measures the load core).
 */
export async function productionRun(
  layout: Layout,
  proxy: BenchProcess | undefined,
  upstream: BenchProcess,
  spec: RequestSpec,
  options: {
    stream: boolean;
    connections: number;
    probeRate: number;
    maxDelayMs: number;
    /** One answer's time at the upstream: the connections' first requests spread over it. */
    answerSeconds: number;
    warmupSeconds: number;
    durationSeconds: number;
  },
): Promise<ProductionTargetResult> {
  const idleKb = proxy ? (await readMemory(proxy.pid)).rssKb : undefined;
  // wrk's Lua clock is whole Unix seconds: the window starts and ends on one.
  const windowStart = Math.ceil(Date.now() / 1000 + options.warmupSeconds);
  const windowEnd = windowStart + options.durationSeconds;
  const wrk = await startWrkProduction(spec, {
    connections: options.connections,
    // Past the window's end, so the load is the same until then.
    durationSeconds: windowEnd - Date.now() / 1000 + 1,
    cpu: layout.loadCpu,
    scriptDir: layout.tempDir,
    stream: options.stream,
    windowStart,
    windowEnd,
    maxDelayMs: options.maxDelayMs,
    rampMs: options.answerSeconds * 1000,
  });
  const probe = await spawnDeno("production probe", `${layout.scriptDir}/production_load.ts`, [
    "--spec",
    JSON.stringify(spec),
    "--rate",
    String(options.probeRate),
    "--window-start",
    String(windowStart * 1000),
    "--duration",
    String(options.durationSeconds),
    ...(options.stream ? ["--stream"] : []),
  ], { cpu: layout.loadCpu, config: layout.config });
  try {
    const loadCpu = async () =>
      (await readCpuSeconds(wrk.pid)) + (await readCpuSeconds(probe.pid)) +
      (await readCpuSeconds(upstream.pid));
    await sleepUntil(windowStart * 1000);
    const cpuBefore = proxy ? await readCpuSeconds(proxy.pid) : 0;
    const threadsBefore = proxy ? await readThreadCpuSeconds(proxy.pid) : undefined;
    const loadBefore = await loadCpu();
    const rss: number[] = [];
    let sampling = proxy !== undefined;
    const sampler = (async () => {
      while (sampling) {
        try {
          rss.push((await readMemory(proxy!.pid)).rssKb);
        } catch { /* gone; the caller will notice */ }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    await sleepUntil(windowEnd * 1000);
    sampling = false;
    const cpuAfter = proxy ? await readCpuSeconds(proxy.pid) : 0;
    const threadsAfter = proxy ? await readThreadCpuSeconds(proxy.pid) : undefined;
    const loadAfter = await loadCpu();
    await sampler;
    // The probe prints its window's start and end, then its result once its requests are done.
    const lines: string[] = [];
    for (let line = await probe.nextLine(); line !== undefined; line = await probe.nextLine()) {
      lines.push(line);
      if (line.includes('"event":"done"')) break;
    }
    const doneLine = lines.find((l) => l.includes('"event":"done"'));
    if (doneLine === undefined) throw new Error("the production probe ended without a result");
    const probeResult = JSON.parse(doneLine) as ProductionResult & { event?: string };
    delete probeResult.event;
    const wrkResult = await wrk.result;
    const seconds = options.durationSeconds;
    // A connection is open for its response time, then pauses half of `maxDelayMs` on average.
    const response = wrkResult.latencyMeanMs;
    const wrkOpen = options.connections * response / (response + options.maxDelayMs / 2);
    return {
      durationSeconds: seconds,
      connections: options.connections,
      // Both counted alike: the answers that ended inside the window, and their events.
      requestsPerSecond: (wrkResult.windowCompleted + probeResult.windowCompleted) / seconds,
      ok: wrkResult.windowCompleted + probeResult.windowCompleted,
      errors: wrkResult.windowFailed + wrkResult.errors + probeResult.errors,
      chunks: wrkResult.windowEvents + probeResult.windowCompletedEvents,
      meanOpen: wrkOpen + probeResult.meanOpen,
      ttfb: probeResult.ttfb,
      latency: probeResult.latency,
      sendLag: probeResult.sendLag,
      wrk: wrkResult,
      probe: probeResult,
      loadCpuSeconds: loadAfter - loadBefore,
      ...(proxy === undefined ? {} : {
        proxyCpuSeconds: cpuAfter - cpuBefore,
        proxyThreadCpuSeconds: Object.fromEntries(
          Object.entries(threadsAfter!).map(([k, v]) => [k, v - threadsBefore![k as ThreadGroup]]),
        ) as Record<ThreadGroup, number>,
        idleKb: idleKb!,
        windowKb: rss.length === 0 ? NaN : rss.reduce((a, b) => a + b, 0) / rss.length,
      }),
    };
  } finally {
    await probe.stop();
    await wrk.result.catch(() => {});
  }
}
