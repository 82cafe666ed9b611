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
import type { ProductionResult, ProductionWindow } from "./production_load.ts";
import type { SpreadResult } from "./spread_streams.ts";
import { runWrk } from "./wrk.ts";
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

/** One target in a production-shaped scenario (production_load.ts), with what the proxy used. */
export interface ProductionTargetResult extends ProductionResult {
  /** The proxy's CPU (every thread) in the window, seconds; absent for `direct`. */
  proxyCpuSeconds?: number;
  /** The same split by thread group (processes.ts `threadGroup`). */
  proxyThreadCpuSeconds?: Record<ThreadGroup, number>;
  /** RSS of the proxy once started and smoke-tested, before the load, KiB. */
  idleKb?: number;
  /** Mean RSS sampled every 200 ms in the window, KiB. */
  windowKb?: number;
  /** CPU of the load core's processes in the window (the generator and the upstream), seconds. */
  loadCpuSeconds: number;
}

/**
 * Runs the production-shaped generator against `spec` and reads, over its measured window,
 * the proxy's CPU (every thread, and by thread group) and mean RSS, and the load core's CPU
 * (the generator's and the upstream's: above ~90 % of the core the run measures the load core).
 */
export async function productionRun(
  layout: Layout,
  proxy: BenchProcess | undefined,
  upstream: BenchProcess,
  spec: RequestSpec,
  options: { stream: boolean; rate: number; warmupSeconds: number; durationSeconds: number },
): Promise<ProductionTargetResult> {
  const idleKb = proxy ? (await readMemory(proxy.pid)).rssKb : undefined;
  const child = await spawnDeno("production_load", `${layout.scriptDir}/production_load.ts`, [
    "--spec",
    JSON.stringify(spec),
    "--rate",
    String(options.rate),
    "--warmup",
    String(options.warmupSeconds),
    "--duration",
    String(options.durationSeconds),
    ...(options.stream ? ["--stream"] : []),
  ], { cpu: layout.loadCpu, config: layout.config });
  try {
    // The first line is the window's start.
    const cpuBefore = proxy ? await readCpuSeconds(proxy.pid) : 0;
    const threadsBefore = proxy ? await readThreadCpuSeconds(proxy.pid) : undefined;
    const loadBefore = (await readCpuSeconds(child.pid)) + (await readCpuSeconds(upstream.pid));
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
    const endLine = await child.nextLine();
    sampling = false;
    const cpuAfter = proxy ? await readCpuSeconds(proxy.pid) : 0;
    const threadsAfter = proxy ? await readThreadCpuSeconds(proxy.pid) : undefined;
    const loadAfter = (await readCpuSeconds(child.pid)) + (await readCpuSeconds(upstream.pid));
    await sampler;
    if (endLine === undefined) throw new Error("production_load ended without its window");
    JSON.parse(endLine) as ProductionWindow;
    const doneLine = await child.nextLine();
    if (doneLine === undefined) throw new Error("production_load ended without a result");
    const result = JSON.parse(doneLine) as ProductionResult & { event?: string };
    delete result.event;
    return {
      ...result,
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
    await child.stop();
  }
}
