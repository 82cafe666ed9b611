/**
 * Event-loop delay of a benchmarked process: a timer due every `intervalMs`
 * records how late it fired, which is how long the main thread was busy with something
 * else (a commit batch, a GC pause, a burst of callbacks). On SIGUSR1 the process prints
 * the summary since the last SIGUSR1 as one JSON line on stdout and starts afresh, so the
 * runner can bracket one measurement; a process may add its own counters to that line
 * (Sovra: the store's group commits so far, `commits` and `writes`). `perf_hooks.monitorEventLoopDelay` is not a real
 * histogram in Deno 2.9, hence the timer.
 */
import { type LatencySummary, summarise } from "./latency_stats.ts";

export const LOOP_DELAY_SIGNAL = "SIGUSR1";
const INTERVAL_MS = 5;

/** Counters a process adds to its SIGUSR1 line (totals since it started). */
export type ReportExtra = () => Promise<Record<string, number>>;

/** Starts the probe and the SIGUSR1 report; returns a stop function. */
export function reportLoopDelayOnSignal(
  intervalMs = INTERVAL_MS,
  extra?: ReportExtra,
): () => void {
  let samples: number[] = [];
  let timer = 0;
  let expected = performance.now() + intervalMs;
  const tick = () => {
    const now = performance.now();
    samples.push(Math.max(0, now - expected));
    expected = now + intervalMs;
    timer = Number(setTimeout(tick, intervalMs));
    Deno.unrefTimer(timer);
  };
  timer = Number(setTimeout(tick, intervalMs));
  Deno.unrefTimer(timer);
  const report = async () => {
    const summary: LatencySummary = summarise(samples);
    samples = [];
    const more = extra ? await extra().catch(() => ({})) : {};
    console.log(JSON.stringify({ loopDelay: summary, ...more }));
  };
  Deno.addSignalListener(LOOP_DELAY_SIGNAL, report);
  return () => {
    clearTimeout(timer);
    Deno.removeSignalListener(LOOP_DELAY_SIGNAL, report);
  };
}
