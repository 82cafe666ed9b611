/**
 * `deno task bench --baseline REV[,REV|DIR…]`: this checkout's Sovra against earlier code, in
 * the same run, measured so that the host's own drift cancels out.
 *
 * A shared 2-core VM changes speed by ±15–20 % from one 10 s window to the next (the same
 * build's CPU per request, measured back to back). Two builds measured one after the other,
 * even interleaved, need many rounds to show a 10 % difference. Here every build runs at the
 * same time, all pinned to the proxy core, each paced at the same rate below saturation: a
 * slow moment of the host slows them all alike, and each window's ratio of CPU per request
 * compares the builds under one and the same host speed (docs/performance.md, "Earlier code side by side").
 *
 * A baseline is a git revision (extracted with `git archive` into the run's temp dir, run with
 * its own `deno.json`, lock and `scripts/bench/sovra_server.ts`) or a directory holding such a
 * checkout. This checkout's Sovra runs as two builds: as it is (`sovra-unguarded`, the
 * like-for-like build: older code has no connection guard) and with `--admission-wait off`
 * (`sovra-no-admission-wait`): answers do not wait for a durable admission record. The second
 * one separates the admission record's durability commit from the rest of the hot path.
 *
 * Every build is measured against two upstreams: the simulator answering at once, and one that
 * waits `BASELINE_UPSTREAM_WAIT_MS` before every chat answer (what an LLM does).
 */
import { type Layout, pacedLoop } from "./measure.ts";
import { type BenchProcess, readCpuSeconds, spawnDeno } from "./processes.ts";
import { chatRequest, type RequestSpec } from "./workload.ts";
import type { PacedResult } from "./paced_load.ts";

/**
 * The second upstream of the comparison: every chat answer 50 ms after the request, as a
 * model's first token comes (the first upstream answers at once). An admission commit can
 * overlap a real provider's answer; against an instant one every answer waits for its own.
 */
export const BASELINE_UPSTREAM_WAIT_MS = 50;

/** One build under comparison, ready to start. */
export interface BaselineTree {
  /** As the tables name it: `561398a`, or the directory's name. */
  label: string;
  /** The checkout's root (its `deno.json` and `scripts/bench/sovra_server.ts`). */
  dir: string;
}

/** The `--baseline` list: revisions or directories, comma-separated, blanks dropped. */
export function parseBaselineList(raw: string): string[] {
  return raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

async function git(root: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args: ["-C", root, ...args], stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * A directory that holds a Sovra checkout is used as it is; anything else is resolved as a git
 * revision of `root` and extracted into `tempDir` (`git archive`, no worktree left behind).
 */
export async function prepareBaseline(
  entry: string,
  root: string,
  tempDir: string,
): Promise<BaselineTree> {
  const asDir = await Deno.stat(`${entry}/scripts/bench/sovra_server.ts`).catch(() => undefined);
  if (asDir?.isFile) {
    return { label: entry.replace(/\/+$/, "").split("/").pop() || entry, dir: entry };
  }
  const sha = await git(root, ["rev-parse", "--verify", "--quiet", `${entry}^{commit}`]).catch(
    () => {
      throw new Error(`--baseline '${entry}' is neither a Sovra checkout nor a git revision.`);
    },
  );
  const dir = `${tempDir}/baseline-${sha.slice(0, 12)}`;
  await Deno.mkdir(dir, { recursive: true });
  const archive = new Deno.Command("git", {
    args: ["-C", root, "archive", "--format=tar", sha],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const tar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
  await archive.stdout.pipeTo(tar.stdin);
  const [a, t] = await Promise.all([archive.status, tar.status]);
  if (!a.success || !t.success) throw new Error(`Could not extract ${entry} (${sha}).`);
  const label = entry.length <= 12 ? entry : sha.slice(0, 7);
  return { label, dir };
}

/**
 * Starts a tree's own benchmark server on the proxy core against the simulator. Options an
 * older server does not know are left out: code without a connection guard runs as it always
 * did (unguarded), code before `--admission-wait` always waited.
 */
export async function startTreeSovra(
  tree: BaselineTree,
  name: string,
  options: { simV1: string; cpu: number; admissionWait?: "on" | "off" },
): Promise<BenchProcess> {
  const script = `${tree.dir}/scripts/bench/sovra_server.ts`;
  const source = await Deno.readTextFile(script);
  const args = ["--upstream", options.simV1];
  if (/\bguard:\s*\{/.test(source)) args.push("--guard", "off");
  if (options.admissionWait !== undefined) {
    if (!source.includes('"admission-wait"')) {
      throw new Error(`${tree.label}'s sovra_server.ts has no --admission-wait option.`);
    }
    args.push("--admission-wait", options.admissionWait);
  }
  return await spawnDeno(name, script, args, { cpu: options.cpu, config: `${tree.dir}/deno.json` });
}

/** One target of a same-time comparison: its process and the request it is loaded with. */
export interface SideBySideTarget {
  name: string;
  process: BenchProcess;
  spec: RequestSpec;
}

/** One window with every target paced at once; per target, in the order given. */
export interface SideBySideRound {
  cpuUsPerRequest: number[];
  /** Scheduled send → last byte, while the others ran beside it. */
  p50Ms: number[];
  errors: number[];
}

/**
 * Every target paced at the same rate at the same time (one open-loop generator each, on the
 * load core), a warm-up window and then `rounds` measured ones; per window and target, the
 * process's CPU (every thread) divided by the requests it was sent.
 *
 * Paced and below saturation on purpose: loaded to saturation side by side (closed loops),
 * two processes contend for the core and the one that costs more falls behind and costs more
 * still, so a 15 % difference read anywhere from 1.1× to 2.0× (docs/performance-archive.md). At a fixed rate
 * with headroom both do the same work per window whatever the other does, and the ratio of
 * two builds of equal cost stays within 0.95–1.05 a window.
 */
export async function sideBySideRounds(
  layout: Layout,
  targets: SideBySideTarget[],
  options: {
    rate: number;
    durationSeconds: number;
    warmupSeconds: number;
    rounds: number;
    onRound?: (round: SideBySideRound, index: number) => void;
  },
): Promise<SideBySideRound[]> {
  const window = (durationSeconds: number) =>
    Promise.all(targets.map((t) =>
      pacedLoop(layout, t.spec, {
        rate: options.rate,
        durationSeconds,
        warmupSeconds: 0,
        connections: 32,
      })
    ));
  if (options.warmupSeconds > 0) await window(options.warmupSeconds);
  const rounds: SideBySideRound[] = [];
  for (let i = 0; i < options.rounds; i++) {
    const before = await Promise.all(targets.map((t) => readCpuSeconds(t.process.pid)));
    const paced = await window(options.durationSeconds);
    const after = await Promise.all(targets.map((t) => readCpuSeconds(t.process.pid)));
    const round: SideBySideRound = {
      // The bracket includes the generator's start and end, where the proxy idles.
      cpuUsPerRequest: paced.map((p, j) =>
        p.sent > 0 ? (after[j]! - before[j]!) * 1e6 / p.sent : NaN
      ),
      p50Ms: paced.map((p) => p.latency.p50),
      errors: paced.map((p) => p.errors),
    };
    options.onRound?.(round, i);
    rounds.push(round);
  }
  return rounds;
}

/** The median of finite values (NaN when there are none). */
export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Per window, target `i`'s CPU per request ÷ target `j`'s (same window, same host speed). */
export function roundRatios(rounds: readonly SideBySideRound[], i: number, j: number): number[] {
  return rounds.map((r) => r.cpuUsPerRequest[i]! / r.cpuUsPerRequest[j]!);
}

/** One row group of the comparison: a scenario against one upstream. */
export interface BaselineCase {
  /** `non-stream` or `stream`, with the upstream's wait: `stream, upstream 50 ms`. */
  name: string;
  stream: boolean;
  upstreamWaitMs: number;
  /** Per window, every target in `targets` order. */
  rounds: SideBySideRound[];
  /** Each target alone at the main table's paced rate. */
  paced: Record<string, PacedResult>;
}

export interface BaselineResults {
  /** The first baseline: the one the ratios and the no-regression checks use. */
  reference: string;
  /** In measurement order: `sovra-unguarded`, `sovra-no-admission-wait`, the baselines. */
  targets: string[];
  rounds: number;
  /** Each target's paced rate in the side-by-side windows, req/s. */
  rate: number;
  warmupSeconds: number;
  durationSeconds: number;
  cases: BaselineCase[];
}

/**
 * The `--baseline` comparison: for each upstream, this checkout (as it is, and with
 * `--admission-wait off`) and every baseline tree started fresh on the proxy core, each
 * scenario side by side (`sideBySideRounds`), then each target alone at the paced rate.
 */
export async function measureBaselines(
  layout: Layout,
  options: {
    here: BaselineTree;
    trees: BaselineTree[];
    upstreams: Array<{ simV1: string; waitMs: number }>;
    streams: boolean[];
    rounds: number;
    rate: number;
    warmupSeconds: number;
    durationSeconds: number;
    paced: { rate: number; durationSeconds: number; connections: number };
    /** Every process started (stopped by the caller should the run fail). */
    track: (process: BenchProcess) => void;
    smoke: (spec: RequestSpec, label: string) => Promise<void>;
    log: (message: string) => void;
  },
): Promise<BaselineResults> {
  const { log } = options;
  const reference = options.trees[0]!.label;
  const builds: Array<{ tree: BaselineTree; name: string; admissionWait?: "off" }> = [
    { tree: options.here, name: "sovra-unguarded" },
    { tree: options.here, name: "sovra-no-admission-wait", admissionWait: "off" },
    ...options.trees.map((tree) => ({ tree, name: tree.label })),
  ];
  const results: BaselineResults = {
    reference,
    targets: builds.map((b) => b.name),
    rounds: options.rounds,
    rate: options.rate,
    warmupSeconds: options.warmupSeconds,
    durationSeconds: options.durationSeconds,
    cases: [],
  };
  const ref = results.targets.indexOf(reference);
  for (const upstream of options.upstreams) {
    const started: BenchProcess[] = [];
    for (const b of builds) {
      const process = await startTreeSovra(b.tree, b.name, {
        simV1: upstream.simV1,
        cpu: layout.proxyCpu,
        ...(b.admissionWait ? { admissionWait: b.admissionWait } : {}),
      });
      options.track(process);
      started.push(process);
    }
    for (const stream of options.streams) {
      const name = `${stream ? "stream" : "non-stream"}` +
        (upstream.waitMs > 0 ? `, upstream ${upstream.waitMs} ms` : "");
      const targets = started.map((process, i) => ({
        name: builds[i]!.name,
        process,
        spec: chatRequest(
          { base: String(process.hello.url), key: String(process.hello.key), catalog: true },
          { stream },
        ),
      }));
      for (const t of targets) await options.smoke(t.spec, `${name} ${t.name}`);
      log(
        `${name}, side by side: ${results.targets.join(", ")} at ${options.rate} req/s each, ` +
          `${options.rounds} windows of ${options.durationSeconds} s`,
      );
      const rounds = await sideBySideRounds(layout, targets, {
        rate: options.rate,
        durationSeconds: options.durationSeconds,
        warmupSeconds: options.warmupSeconds,
        rounds: options.rounds,
        onRound: (round, i) =>
          log(
            `${name} window ${i + 1}: ` + targets.map((t, j) =>
              `${t.name} ${Math.round(round.cpuUsPerRequest[j]!)} µs` +
              (j === ref
                ? ""
                : ` (${(round.cpuUsPerRequest[j]! / round.cpuUsPerRequest[ref]!).toFixed(3)}×)`)
            ).join(", "),
          ),
      });
      // Latency at the main table's paced rate, one target at a time.
      const paced: Record<string, PacedResult> = {};
      for (const t of targets) {
        const p = await pacedLoop(layout, t.spec, { ...options.paced, warmupSeconds: 1 });
        paced[t.name] = p;
        log(
          `${name} ${t.name} alone: p50 ${p.latency.p50.toFixed(2)} ms, p99 ${
            p.latency.p99.toFixed(2)
          } ms`,
        );
      }
      results.cases.push({ name, stream, upstreamWaitMs: upstream.waitMs, rounds, paced });
    }
    for (const process of started) await process.stop();
  }
  return results;
}
