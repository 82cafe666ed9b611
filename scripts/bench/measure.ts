/**
 * One measurement each: closed-loop throughput (wrk, or the Deno fallback), open-loop paced
 * latency, and memory with many open streams. Load generators always run in their own
 * process on the load core.
 */
import type { ClosedResult } from "./closed_load.ts";
import type { PacedResult } from "./paced_load.ts";
import { type BenchProcess, readCpuSeconds, readMemory, spawnDeno } from "./processes.ts";
import type { OpenStreamsResult, SpreadTargetResult } from "./report.ts";
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
