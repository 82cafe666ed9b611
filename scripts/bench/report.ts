/**
 * Turns the measurements into the markdown the runner prints and writes into
 * docs/performance.md (between the `bench:begin` / `bench:end` markers, so the hand-written
 * analysis around them survives a re-run).
 */
import type { ClosedResult } from "./closed_load.ts";
import type { PacedResult } from "./paced_load.ts";
import type { ScenarioName, TargetName } from "./workload.ts";

export interface TargetResult {
  closed: ClosedResult;
  paced: PacedResult;
  /** CPU time (µs, all threads) the proxy process spent per request in the closed loop. */
  proxyCpuUsPerRequest?: number;
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

export interface BenchResults {
  date: string;
  machine: { nproc: number; cpu: string; kernel: string; loadAverage: string };
  settings: {
    connections: number;
    warmupSeconds: number;
    closedSeconds: number;
    pacedRate: number;
    pacedSeconds: number;
    closedTool: ClosedResult["tool"];
    sovraKv: string;
  };
  scenarios: Partial<Record<ScenarioName, Partial<Record<TargetName, TargetResult>>>>;
  /** Sovra's VmHWM after the throughput and latency runs, KiB. */
  sovraPeakKb: number | undefined;
  openStreams: Partial<Record<"sovra" | "bare-proxy", OpenStreamsResult>>;
}

export interface Check {
  name: string;
  measured: string;
  target: string;
  pass: boolean;
}

export const LIMITS = {
  addedP50Ms: 1,
  addedP99Ms: 3,
  minRatio: 0.5,
  maxOpenStreamsMiB: 150,
};

const mib = (kb: number) => kb / 1024;
const fmt = (n: number, digits = 2) => Number.isFinite(n) ? n.toFixed(digits) : "–";
const cpu = (us: number | undefined) => us === undefined ? "–" : `${fmt(us, 0)} µs`;
const int = (n: number) => Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–";

export function checks(results: BenchResults): Check[] {
  const out: Check[] = [];
  for (const [scenario, targets] of Object.entries(results.scenarios)) {
    const direct = targets?.direct;
    const bare = targets?.["bare-proxy"];
    const sovra = targets?.sovra;
    if (direct && sovra) {
      const p50 = sovra.paced.latency.p50 - direct.paced.latency.p50;
      const p99 = sovra.paced.latency.p99 - direct.paced.latency.p99;
      out.push({
        name: `${scenario}: added p50 at ${results.settings.pacedRate} req/s`,
        measured: `${fmt(p50)} ms`,
        target: `≤ ${LIMITS.addedP50Ms} ms`,
        pass: p50 <= LIMITS.addedP50Ms && sovra.paced.errors === 0,
      });
      out.push({
        name: `${scenario}: added p99 at ${results.settings.pacedRate} req/s`,
        measured: `${fmt(p99)} ms`,
        target: `≤ ${LIMITS.addedP99Ms} ms`,
        pass: p99 <= LIMITS.addedP99Ms && sovra.paced.errors === 0,
      });
    }
    if (bare && sovra) {
      const ratio = sovra.closed.requestsPerSecond / bare.closed.requestsPerSecond;
      out.push({
        name:
          `${scenario}: Sovra ÷ bare proxy req/s at ${results.settings.connections} connections`,
        measured: `${fmt(ratio * 100, 0)} %`,
        target: `≥ ${LIMITS.minRatio * 100} %`,
        pass: ratio >= LIMITS.minRatio && sovra.closed.errors === 0,
      });
    }
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
  }
  return out;
}

export function renderMarkdown(results: BenchResults): string {
  const s = results.settings;
  const lines: string[] = [];
  lines.push(
    `Run of ${results.date} on ${results.machine.nproc} × ${results.machine.cpu}, ` +
      `Linux ${results.machine.kernel}, load average at start ${results.machine.loadAverage}. ` +
      `Closed loop: ${s.closedTool}, ${s.connections} connections, ${s.closedSeconds} s after ` +
      `${s.warmupSeconds} s warm-up. Paced: open loop at ${s.pacedRate} req/s for ${s.pacedSeconds} s. ` +
      `Sovra KV: ${s.sovraKv}.`,
    "",
    `| Scenario | Target | req/s (${s.connections} conn) | p50 @ ${s.pacedRate}/s | ` +
      `p99 @ ${s.pacedRate}/s | added p50 | added p99 | ÷ bare proxy | proxy CPU/req | errors |`,
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
  );
  for (const [scenario, targets] of Object.entries(results.scenarios)) {
    const direct = targets?.direct;
    const bare = targets?.["bare-proxy"];
    for (const [name, r] of Object.entries(targets ?? {})) {
      const added = (pick: "p50" | "p99") =>
        direct && name !== "direct"
          ? `${fmt(r.paced.latency[pick] - direct.paced.latency[pick])} ms`
          : "–";
      const ratio = bare && name === "sovra"
        ? `${fmt((r.closed.requestsPerSecond / bare.closed.requestsPerSecond) * 100, 0)} %`
        : "–";
      lines.push(
        `| ${scenario} | ${name} | ${int(r.closed.requestsPerSecond)} | ` +
          `${fmt(r.paced.latency.p50)} ms | ${fmt(r.paced.latency.p99)} ms | ${added("p50")} | ` +
          `${added("p99")} | ${ratio} | ${cpu(r.proxyCpuUsPerRequest)} | ` +
          `${r.closed.errors + r.paced.errors} |`,
      );
    }
  }
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
    );
  }
  lines.push("", "| Target | Measured | Limit | Result |", "|---|--:|--:|---|");
  for (const c of checks(results)) {
    lines.push(`| ${c.name} | ${c.measured} | ${c.target} | ${c.pass ? "PASS" : "MISS"} |`);
  }
  return lines.join("\n") + "\n";
}

export const BEGIN = "<!-- bench:begin (written by `deno task bench`) -->";
export const END = "<!-- bench:end -->";

/** Replaces the marked section of `doc` (or appends one) with `section`. */
export function replaceSection(doc: string, section: string): string {
  const block = `${BEGIN}\n${section}${END}`;
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin >= 0 && end > begin) {
    return doc.slice(0, begin) + block + doc.slice(end + END.length);
  }
  return `${doc.trimEnd()}\n\n${block}\n`;
}
