/**
 * `deno task bench`: direct-to-simulator, a bare Deno pass-through proxy and Sovra (auth,
 * rate limit, credits, metadata on) in one run, on 127.0.0.1, bounded in time. The proxy
 * under test is pinned to core 0; the simulator and every load generator to core 1.
 * Prints a markdown table and writes it into docs/performance.md (unless --no-write).
 *
 * `--state postgres` runs Sovra on PostgreSQL instead of a KV file: a throwaway cluster in a temp
 * dir on 127.0.0.1 (`../postgres_cluster.ts`, durability on, pinned to core 1 like the other
 * services), one database per Sovra process; its tables go between their own markers.
 *
 * Options: --warmup 3 --duration 10 --paced-seconds 10 --rate 500 --connections 32
 *   --streams 1000 --state kv|postgres --kv <path|:memory:>
 *   --cpu-prof <dir> (Sovra profiled: <dir>/instant for the instant scenarios, <dir>/prod-stream and
 *     <dir>/prod-non-stream for the production-shaped ones)
 *   --scenarios non-stream,stream,router,slow-upstream,prod-stream,prod-non-stream,spread,
 *     workers,open-streams,shared-limits (any of them, all by default)
 *   --quick (short windows: 1 s warm-up, 3 s measured, production 3 s + 4 s)
 *   --prod-open 1000 --prod-warmup 5 --prod-seconds 10 (the production-shaped scenarios:
 *     requests open at once, fill time, window)
 *   --slow-rate 100 (paced rate of the slow-upstream scenario)
 *   --no-write --json <file> --doc <file (default docs/performance.md)>
 *   --peers (also Portkey's gateway and the LiteLLM proxy, installed into the run's temp dir)
 *   --spread-streams 500 --spread-seconds 10 (concurrent streams with chunks 20 ms apart; 0: off)
 *   --no-workers (skip the SOVRA_WORKERS=2 vs 1 row, both unpinned)
 *   --baseline REV[,REV|DIR…] --baseline-rounds 5 --baseline-rate 150 (earlier code side by
 *   side: baseline.ts)
 */
import { parseArgs } from "node:util";
import {
  closedLoop,
  type Layout,
  openStreams,
  pacedLoop,
  productionRun,
  spreadStreams,
} from "./measure.ts";
import {
  type BenchProcess,
  readCpuSeconds,
  readMemory,
  readThreadCpuSeconds,
  spawnDeno,
  type ThreadGroup,
} from "./processes.ts";
import type { LatencySummary } from "./latency_stats.ts";
import { LOOP_DELAY_SIGNAL } from "./loop_delay.ts";
import {
  type BenchResults,
  checks,
  POSTGRES_MARKERS,
  renderMarkdown,
  replaceSection,
  type TargetResult,
} from "./report.ts";
import {
  chatRequest,
  type Endpoint,
  parseRunParts,
  PEER_SCENARIOS,
  PRODUCTION_SCENARIOS,
  type ProductionScenario,
  RUN_PARTS,
  type ScenarioName,
  SCENARIOS,
  SPREAD_GAP_MS,
  type TargetName,
  TARGETS,
} from "./workload.ts";
import { PRODUCTION_TIMING, startNginxUpstream, streamSeconds } from "./production_upstream.ts";
import {
  addedFirstByteMs,
  cpuPerChunkUs,
  cpuPerRequestUs,
  kbPerOpen,
  loadShare,
  proxyShare,
} from "./production_report.ts";
import { targetRows } from "./targets.ts";
import { ensureLoadTools, ensureNginxEcho } from "./tools.ts";
import { type PgCluster, startPostgres } from "../postgres_cluster.ts";
import { PEERS, startPeer } from "./peers.ts";
import {
  BASELINE_UPSTREAM_WAIT_MS,
  type BaselineTree,
  measureBaselines,
  parseBaselineList,
  prepareBaseline,
} from "./baseline.ts";

const RUN_LIMIT_MS = 14 * 60_000;
/** wrk's pause before a connection's next production-shaped request: 0 to this, ms. */
const PROD_MAX_DELAY_MS = 50;
/** A process is quiet below this share of a core over `QUIET_WINDOW_MS`; waited for ≤ QUIET_MAX_MS. */
const QUIET_SHARE = 0.05;
const QUIET_WINDOW_MS = 500;
const QUIET_MAX_MS = 60_000;
/** Installing and measuring the peers (a pip install of LiteLLM alone takes a minute or two). */
const PEERS_LIMIT_MS = 8 * 60_000;
/** Extracting, caching and measuring the baselines side by side (two upstreams, two scenarios). */
const BASELINE_LIMIT_MS = 12 * 60_000;
/** Waits until the process uses under QUIET_SHARE of a core (a peer draining its backlog). */
async function untilQuiet(pid: number, name: string): Promise<void> {
  const deadline = Date.now() + QUIET_MAX_MS;
  for (;;) {
    const before = await readCpuSeconds(pid).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const after = await readCpuSeconds(pid).catch(() => undefined);
    if (before === undefined || after === undefined) return; // gone
    if ((after - before) * 1000 < QUIET_SHARE * QUIET_WINDOW_MS) return;
    if (Date.now() > deadline) {
      console.error(`${name} still busy after ${QUIET_MAX_MS / 1000} s; going on`);
      return;
    }
  }
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean", default: false },
    warmup: { type: "string" },
    duration: { type: "string" },
    "paced-seconds": { type: "string" },
    "prod-open": { type: "string", default: "1000" },
    "prod-warmup": { type: "string" },
    "prod-seconds": { type: "string" },
    rate: { type: "string", default: "500" },
    "slow-rate": { type: "string", default: "100" },
    connections: { type: "string", default: "32" },
    streams: { type: "string", default: "1000" },
    state: { type: "string", default: "kv" },
    "spread-streams": { type: "string", default: "500" },
    "spread-seconds": { type: "string" },
    kv: { type: "string" },
    "sovra-v8-flags": { type: "string" },
    "cpu-prof": { type: "string" },
    scenarios: { type: "string", default: RUN_PARTS.join(",") },
    "no-write": { type: "boolean", default: false },
    peers: { type: "boolean", default: false },
    "no-workers": { type: "boolean", default: false },
    baseline: { type: "string" },
    "baseline-rounds": { type: "string", default: "5" },
    "baseline-rate": { type: "string", default: "150" },
    json: { type: "string" },
    doc: { type: "string" },
  },
});
const num = (name: string, raw: string) => {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number, got '${raw}'.`);
  return n;
};
/** An option's value, else its `--quick` default, else its full-run default. */
const timing = (name: keyof typeof values, full: number, quick: number) =>
  num(name, (values[name] as string | undefined) ?? String(values.quick ? quick : full));
const warmupSeconds = timing("warmup", 3, 1);
const closedSeconds = timing("duration", 10, 3);
const pacedSeconds = timing("paced-seconds", 10, 3);
const prodOpen = num("prod-open", values["prod-open"]);
const prodWarmupSeconds = timing("prod-warmup", 5, 3);
const prodSeconds = timing("prod-seconds", 10, 4);
const rate = num("rate", values.rate);
const slowRate = num("slow-rate", values["slow-rate"]);
const connections = num("connections", values.connections);
const streamCount = num("streams", values.streams);
const spreadCount = num("spread-streams", values["spread-streams"]);
const spreadSeconds = timing("spread-seconds", 10, 3);
const baselineEntries = parseBaselineList(values.baseline ?? "");
const baselineRounds = num("baseline-rounds", values["baseline-rounds"]);
const baselineRate = num("baseline-rate", values["baseline-rate"]);
const parts = parseRunParts(values.scenarios);
const scenarios = parts.filter((s): s is ScenarioName =>
  (SCENARIOS as readonly string[]).includes(s)
);
const prodScenarios = parts.filter((s): s is ProductionScenario =>
  (PRODUCTION_SCENARIOS as readonly string[]).includes(s)
);
const runSpread = parts.includes("spread") && spreadCount > 0;
const runWorkers = parts.includes("workers") && !values["no-workers"];
const runOpenStreams = parts.includes("open-streams") && streamCount > 0;

const onPostgres = values.state === "postgres";
if (!onPostgres && values.state !== "kv") {
  throw new Error(`--state must be kv or postgres, got '${values.state}'.`);
}
if (onPostgres && values.kv !== undefined) throw new Error("--kv is for --state kv only.");
if (onPostgres && baselineEntries.length > 0) {
  throw new Error("--baseline compares builds on a KV file; run it with --state kv.");
}

const root = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const layout: Layout = {
  proxyCpu: 0,
  loadCpu: 1,
  config: `${root}/deno.json`,
  scriptDir: `${root}/scripts/bench`,
  tempDir: await Deno.makeTempDir({ prefix: "sovra-bench-run-" }),
};
const log = (msg: string) => console.error(`[bench] ${msg}`);
const children: BenchProcess[] = [];
let cluster: PgCluster | undefined;
const stopAll = async () => {
  await Promise.all(children.map((c) => c.stop()));
  await cluster?.stop();
  await Deno.remove(layout.tempDir, { recursive: true }).catch(() => {});
};
const runLimitMs = RUN_LIMIT_MS + (values.peers ? PEERS_LIMIT_MS : 0) +
  (baselineEntries.length > 0 ? BASELINE_LIMIT_MS : 0);
/** What was measured so far: the watchdog still prints it (and `--json` still gets it). */
let measured: BenchResults | undefined;
const watchdog = setTimeout(async () => {
  log(`run exceeded ${runLimitMs / 1000} s; stopping`);
  if (measured) {
    console.log(renderMarkdown(measured));
    if (values.json !== undefined) {
      await Deno.writeTextFile(values.json, JSON.stringify(measured, null, 2) + "\n");
    }
  }
  await stopAll();
  Deno.exit(1);
}, runLimitMs);

try {
  const tools = await ensureLoadTools({
    pinCpu: layout.loadCpu,
    // Production-shaped: the open requests, and the newly arrived ones beside them.
    streams: Math.max(streamCount, spreadCount, prodScenarios.length > 0 ? prodOpen * 1.5 : 0),
    log,
  });
  if (prodScenarios.length > 0) {
    await ensureNginxEcho(log);
    // wrk carries the production-shaped load.
    if (tools.closed !== "wrk") throw new Error("The production-shaped scenarios need wrk.");
  }
  const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/^model name\s*:\s*(.+)$/m)?.[1];
  const results: BenchResults = {
    date: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC",
    machine: {
      nproc: navigator.hardwareConcurrency,
      cpu: cpu ?? "unknown CPU",
      kernel: Deno.osRelease(),
      loadAverage: Deno.loadavg().map((n) => n.toFixed(2)).join(" "),
    },
    settings: {
      connections,
      warmupSeconds,
      closedSeconds,
      pacedRate: rate,
      slowRate,
      pacedSeconds,
      closedTool: tools.closed,
      sovraKv: onPostgres
        ? "PostgreSQL (throwaway cluster in a temp dir on 127.0.0.1, fsync on, core 1; " +
          "one database per Sovra process)"
        : values.kv === undefined
        ? "KV file in a temp dir"
        : `KV ${values.kv}`,
    },
    scenarios: {},
    peers: {},
    sovraPeakKb: undefined,
    openStreams: {},
  };
  measured = results;

  if (onPostgres) {
    cluster = await startPostgres({ durable: true, cpu: layout.loadCpu });
    log(`PostgreSQL cluster on ${cluster.url}`);
  }
  const sim = await spawnDeno("simulator", `${root}/scripts/simulator/openai/main.ts`, [
    "--port",
    "0",
  ], { cpu: layout.loadCpu, config: layout.config });
  children.push(sim);
  const simV1 = String(sim.hello.line);
  const simOrigin = simV1.replace(/\/v1\/?$/, "");
  const profDir = values["cpu-prof"];
  const startBare = (upstreamOrigin = simOrigin) =>
    spawnDeno("bare proxy", `${layout.scriptDir}/bare_proxy.ts`, ["--upstream", upstreamOrigin], {
      cpu: layout.proxyCpu,
      config: layout.config,
    });
  /**
   * A Sovra process; with `--cpu-prof` and a `profile` name, profiled into that subdirectory
   * of the profile directory (one per phase, so each profile covers one kind of load).
   */
  const startSovra = async (profile?: string, workers?: number, upstreamV1 = simV1) => {
    const proxy = await spawnDeno(
      "sovra",
      `${layout.scriptDir}/sovra_server.ts`,
      [
        "--upstream",
        upstreamV1,
        ...(values.kv === undefined ? [] : ["--kv", values.kv]),
        ...(cluster ? ["--database-url", await cluster.database()] : []),
        ...(workers === undefined ? [] : ["--workers", String(workers)]),
      ],
      {
        // The workers row runs unpinned: every core.
        cpu: workers === undefined ? layout.proxyCpu : `0-${navigator.hardwareConcurrency - 1}`,
        config: layout.config,
        // A measurement lever: V8 flags for Sovra's process only (e.g. its young generation).
        ...(values["sovra-v8-flags"] ? { v8Flags: values["sovra-v8-flags"].split(",") } : {}),
        ...(profile !== undefined && profDir !== undefined
          ? { denoFlags: ["--cpu-prof", `--cpu-prof-dir=${profDir}/${profile}`] }
          : {}),
      },
    );
    if (proxy.hello.state !== values.state) {
      await proxy.stop();
      throw new Error(`Sovra started on '${proxy.hello.state}', not on '${values.state}'.`);
    }
    return proxy;
  };
  // The instant scenarios and the spread-out streams share one bare proxy and one Sovra.
  const shared = scenarios.length > 0 || runSpread;
  const bare = shared ? await startBare() : undefined;
  if (bare) children.push(bare);
  const sovra = shared ? await startSovra("instant") : undefined;
  if (sovra) children.push(sovra);
  // One Sovra: the process has no connection layer of its own (its limits are the front
  // proxy's, docs/reliability.md), so there is no build without one to compare it with.
  if (bare && sovra) {
    log(`simulator ${simOrigin}, bare proxy ${bare.hello.url}, sovra ${sovra.hello.url}`);
  }

  const endpoints: Partial<Record<TargetName, Endpoint>> = {
    direct: { base: simOrigin, key: "bench", catalog: false },
    ...(bare
      ? { "bare-proxy": { base: String(bare.hello.url), key: "bench", catalog: false } }
      : {}),
    ...(sovra
      ? { sovra: { base: String(sovra.hello.url), key: String(sovra.hello.key), catalog: true } }
      : {}),
  };
  const processes: Partial<Record<TargetName, BenchProcess>> = {
    ...(bare ? { "bare-proxy": bare } : {}),
    ...(sovra ? { sovra } : {}),
  };
  /** Ours answer SIGUSR1 with their event-loop delay; a peer's runtime would not. */
  const probed = new Set<BenchProcess>([bare, sovra].filter((p) => p !== undefined));
  const probeOf = (proxy: BenchProcess | undefined) =>
    proxy && probed.has(proxy) ? proxy : undefined;
  /**
   * The smoke request of a target in a scenario: whether it serves it. A peer that cannot is
   * reported (its answer kept), not fatal; ours must serve them all.
   */
  const serves = async (
    spec: ReturnType<typeof chatRequest>,
    scenario: string,
    target: TargetName,
    peer: boolean,
  ): Promise<boolean> => {
    try {
      await smokeTest(spec, `${scenario} ${target}`);
      return true;
    } catch (error) {
      if (!peer) throw error;
      const reason = (error as Error).message;
      log(`${target}: skipped in ${scenario}: ${reason}`);
      (results.peers[target as keyof BenchResults["peers"]]!.failed ??= {})[scenario] = reason;
      return false;
    }
  };
  /** Peers that started (`--peers`); measured after every row of ours, see below. */
  const peerTargets: TargetName[] = [];
  /** Measures one target in one scenario: closed loop (not for slow-upstream), then paced. */
  const measure = async (scenario: ScenarioName, target: TargetName): Promise<void> => {
    const slow = scenario === "slow-upstream";
    const stream = scenario === "stream" || slow;
    const endpoint = endpoints[target];
    if (endpoint === undefined) return;
    const spec = chatRequest(endpoint, {
      stream,
      model: slow ? "ttfb" : "chat",
      router: scenario === "router",
    });
    const peer = peerTargets.includes(target);
    if (!(await serves(spec, scenario, target, peer))) return;
    const proxy = processes[target];
    let closed: TargetResult["closed"] | undefined;
    let proxyCpuUsPerRequest: number | undefined;
    let closedCommits: number | undefined;
    let writesPerCommit: number | undefined;
    if (!slow) {
      log(`${scenario} ${target}: warm-up ${warmupSeconds} s, closed loop ${closedSeconds} s`);
      if (warmupSeconds > 0) {
        await closedLoop(layout, spec, {
          tool: tools.closed,
          connections,
          durationSeconds: warmupSeconds,
        });
      }
      const countsBefore = probeOf(proxy) ? await loopDelay(proxy!) : undefined;
      const cpuBefore = proxy ? await readCpuSeconds(proxy.pid) : 0;
      closed = await closedLoop(layout, spec, {
        tool: tools.closed,
        connections,
        durationSeconds: closedSeconds,
      });
      proxyCpuUsPerRequest = proxy
        ? ((await readCpuSeconds(proxy.pid)) - cpuBefore) * 1e6 / closed.requests
        : undefined;
      const countsAfter = probeOf(proxy) ? await loopDelay(proxy!) : undefined;
      closedCommits = commitsPer(countsBefore, countsAfter, closed.requests);
      if (closedCommits !== undefined && countsBefore?.writes !== undefined) {
        const commits = countsAfter!.commits! - countsBefore.commits!;
        writesPerCommit = commits > 0 ? (countsAfter!.writes! - countsBefore.writes) / commits : 0;
      }
      log(
        `${scenario} ${target}: ${Math.round(closed.requestsPerSecond)} req/s` +
          (closedCommits === undefined
            ? ""
            : `, ${closedCommits.toFixed(2)} store commits per request ` +
              `(${writesPerCommit?.toFixed(1)} writes each)`),
      );
    }
    const pacedRate = slow ? slowRate : rate;
    log(`${scenario} ${target}: paced ${pacedRate}/s for ${pacedSeconds} s`);
    const probe = probeOf(proxy);
    const pacedBefore = probe ? await loopDelay(probe) : undefined; // start the bracket
    const paced = await pacedLoop(layout, spec, {
      rate: pacedRate,
      durationSeconds: pacedSeconds,
      warmupSeconds: 1,
      connections,
    });
    const pacedAfter = probe ? await loopDelay(probe) : undefined;
    const delay = pacedAfter?.loopDelay;
    // The paced bracket includes the generator's warm-up second.
    const pacedCommits = commitsPer(pacedBefore, pacedAfter, paced.sent + pacedRate);
    // A run without one successful request has no percentiles (NaN, null through JSON).
    const f2 = (n: number | null) => typeof n === "number" ? n.toFixed(2) : "–";
    log(
      `${scenario} ${target}: p50 ${f2(paced.latency.p50)} ms, ` +
        `p99 ${f2(paced.latency.p99)} ms, TTFB p50 ${f2(paced.ttfb.p50)} ms ` +
        `(generator lag p99 ${f2(paced.sendLag.p99)} ms, ${paced.errors} errors` +
        (delay ? `; proxy loop delay p99 ${f2(delay.p99)} ms` : "") +
        (pacedCommits === undefined
          ? ")"
          : `; ${pacedCommits.toFixed(2)} store commits per request)`),
    );
    // A peer that timed out still works through its backlog on the proxy core: the next
    // scenario's rows (ours included) would measure that (the 10:02 run's router and
    // slow-upstream rows, with LiteLLM's 5,000 timed-out streams behind them).
    if (peer && proxy) await untilQuiet(proxy.pid, target);
    (results.scenarios[scenario] ??= {})[target] = {
      ...(closed === undefined ? {} : { closed }),
      paced,
      ...(delay === undefined ? {} : { loopDelay: delay }),
      ...(proxyCpuUsPerRequest === undefined ? {} : { proxyCpuUsPerRequest }),
      ...(closedCommits === undefined && pacedCommits === undefined ? {} : {
        commits: {
          ...(closedCommits === undefined ? {} : { closedPerRequest: closedCommits }),
          ...(pacedCommits === undefined ? {} : { pacedPerRequest: pacedCommits }),
          ...(writesPerCommit === undefined ? {} : { writesPerCommit }),
        },
      }),
    };
  };

  for (const scenario of scenarios) {
    results.scenarios[scenario] = {};
    for (const target of TARGETS) await measure(scenario, target);
  }
  if (runSpread) {
    results.spread = { streams: spreadCount, gapMs: SPREAD_GAP_MS, targets: {} };
    for (const name of ["bare-proxy", "sovra"] as const) {
      log(`${name}: ${spreadCount} spread-out streams for ${spreadSeconds} s`);
      const spec = chatRequest(endpoints[name]!, { stream: true, model: "spread" });
      await smokeTest(spec, `spread ${name}`);
      const r = await spreadStreams(layout, processes[name]!, spec, {
        streams: spreadCount,
        rampSeconds: 2,
        durationSeconds: spreadSeconds,
      });
      log(
        `${name}: ${Math.round(r.chunks / r.seconds)} events/s, ` +
          `${r.proxyCpuUsPerChunk.toFixed(1)} µs CPU per event, ${r.errors} errors`,
      );
      results.spread.targets[name] = r;
    }
  }
  if (sovra) results.sovraPeakKb = (await readMemory(sovra.pid)).hwmKb;
  await sovra?.stop();
  await bare?.stop();

  // The production-shaped scenarios: fresh processes per target, on their own upstream.
  const prodUpstream = prodScenarios.length > 0
    ? await startNginxUpstream(PRODUCTION_TIMING, { cpu: layout.loadCpu, dir: layout.tempDir })
    : undefined;
  if (prodUpstream) children.push(prodUpstream.process);
  /** The upstream's `/v1` for a scenario (its answer kind has a location of its own). */
  const prodV1 = (scenario: ProductionScenario) =>
    scenario === "prod-stream" ? prodUpstream!.streamV1 : prodUpstream!.jsonV1;
  if (prodUpstream) {
    results.production = {
      timing: PRODUCTION_TIMING,
      open: prodOpen,
      maxDelayMs: PROD_MAX_DELAY_MS,
      warmupSeconds: prodWarmupSeconds,
      durationSeconds: prodSeconds,
      scenarios: {},
    };
  }
  /** One target in one production-shaped scenario; a peer that cannot serve it is reported. */
  const measureProduction = async (
    scenario: ProductionScenario,
    target: TargetName,
    proxy: BenchProcess | undefined,
    endpoint: Endpoint,
  ): Promise<void> => {
    const stream = scenario === "prod-stream";
    const spec = chatRequest(endpoint, { stream, model: "prod" });
    const peer = target === "portkey" || target === "litellm";
    if (!(await serves(spec, scenario, target, peer))) return;
    const seconds = stream ? streamSeconds(PRODUCTION_TIMING) : PRODUCTION_TIMING.answerMs / 1000;
    // The probe: a twentieth of the arrivals (at least 20/s), the rest of the open ones wrk's.
    const probeRate = Math.max(20, prodOpen / seconds / 20);
    const wrkConnections = Math.max(1, Math.round(prodOpen - probeRate * seconds));
    log(
      `${scenario} ${target}: wrk ${wrkConnections} connections and a probe at ` +
        `${Math.round(probeRate)} req/s, ${prodWarmupSeconds} + ${prodSeconds} s`,
    );
    const r = await productionRun(layout, proxy, prodUpstream!.process, spec, {
      stream,
      connections: wrkConnections,
      probeRate,
      maxDelayMs: PROD_MAX_DELAY_MS,
      answerSeconds: seconds,
      warmupSeconds: prodWarmupSeconds,
      durationSeconds: prodSeconds,
    });
    const direct = results.production!.scenarios[scenario]?.direct;
    const f = (n: number, d = 2) => Number.isFinite(n) ? n.toFixed(d) : "–";
    log(
      `${scenario} ${target}: ${Math.round(r.requestsPerSecond)} req/s, open ${
        Math.round(r.meanOpen)
      }, ` +
        (proxy
          ? `${f(cpuPerRequestUs(r), 0)} µs CPU/req` +
            (stream ? `, ${f(cpuPerChunkUs(r), 1)} µs/chunk` : "") +
            `, ${f(kbPerOpen(r), 0)} KiB per open, proxy busy ${f(proxyShare(r) * 100, 0)} %, `
          : "") +
        `first byte p50 ${f(r.ttfb.p50)} / p99 ${f(r.ttfb.p99)} ms` +
        (direct && proxy
          ? ` (added ${f(addedFirstByteMs(r, direct, "p50"))} / ${
            f(addedFirstByteMs(r, direct, "p99"))
          } ms)`
          : "") +
        `, load core busy ${f(loadShare(r) * 100, 0)} %, generator lag p99 ` +
        `${f(r.sendLag.p99)} ms, ${r.errors} errors`,
    );
    (results.production!.scenarios[scenario] ??= {})[target] = r;
    if (peer && proxy) await untilQuiet(proxy.pid, target);
  };
  for (const scenario of prodScenarios) {
    const upstreamV1 = prodV1(scenario);
    const upstreamBase = upstreamV1.replace(/\/v1$/, "");
    await measureProduction(scenario, "direct", undefined, {
      base: upstreamBase,
      key: "bench",
      catalog: false,
    });
    for (const name of ["bare-proxy", "sovra"] as const) {
      const proxy = name === "bare-proxy"
        ? await startBare(upstreamBase)
        : await startSovra(scenario, undefined, upstreamV1);
      children.push(proxy);
      await measureProduction(
        scenario,
        name,
        proxy,
        name === "bare-proxy"
          ? { base: String(proxy.hello.url), key: "bench", catalog: false }
          : { base: String(proxy.hello.url), key: String(proxy.hello.key), catalog: true },
      );
      await proxy.stop();
    }
  }

  // SOVRA_WORKERS=2 against one isolate, both unpinned, fresh processes, non-stream closed loop.
  if (runWorkers) {
    results.workers = {};
    for (const count of [1, 2] as const) {
      const proxy = await startSovra(undefined, count);
      children.push(proxy);
      const spec = chatRequest(
        { base: String(proxy.hello.url), key: String(proxy.hello.key), catalog: true },
        { stream: false },
      );
      await smokeTest(spec, `workers ${count}`);
      log(`sovra SOVRA_WORKERS=${count} unpinned: warm-up ${warmupSeconds} s, ${closedSeconds} s`);
      const options = { tool: tools.closed, connections, durationSeconds: warmupSeconds };
      if (warmupSeconds > 0) await closedLoop(layout, spec, options);
      const cpuBefore = await readCpuSeconds(proxy.pid);
      const threadsBefore = await readThreadCpuSeconds(proxy.pid);
      const started = performance.now();
      const closed = await closedLoop(layout, spec, { ...options, durationSeconds: closedSeconds });
      const seconds = (performance.now() - started) / 1000;
      const cpuSeconds = (await readCpuSeconds(proxy.pid)) - cpuBefore;
      const threadsAfter = await readThreadCpuSeconds(proxy.pid);
      const threadCpuSeconds = Object.fromEntries(
        Object.entries(threadsAfter).map(([k, v]) => [k, v - threadsBefore[k as ThreadGroup]]),
      ) as Record<ThreadGroup, number>;
      log(
        `sovra SOVRA_WORKERS=${count}: ${Math.round(closed.requestsPerSecond)} req/s, ` +
          `${(cpuSeconds / seconds).toFixed(2)} cores`,
      );
      results.workers[count] = { ...closed, seconds, cpuSeconds, threadCpuSeconds };
      await proxy.stop();
    }
  }

  // The instance-wide limits' cost on the gate's hot path, on the proxy core: the gate's steps
  // per request with and without the process-wide table, and the authority design not taken.
  if (parts.includes("shared-limits")) {
    const file = `${layout.tempDir}/shared_limits.json`;
    const out = await new Deno.Command("taskset", {
      args: [
        "-c",
        String(layout.proxyCpu),
        Deno.execPath(),
        "run",
        "-A",
        `${root}/scripts/bench/shared_limits_cost.ts`,
        "--json",
        file,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (out.success) {
      log(new TextDecoder().decode(out.stdout).trim());
      results.sharedLimits = JSON.parse(await Deno.readTextFile(file));
    } else log("shared limits cost: measurement failed");
  }

  // Memory per open stream is measured on fresh processes: what a long run leaves in the
  // heap is reported above as the peak and would blur the per-stream cost.
  if (runOpenStreams) {
    for (const name of ["sovra", "bare-proxy"] as const) {
      const proxy = name === "bare-proxy" ? await startBare() : await startSovra();
      children.push(proxy);
      const endpoint: Endpoint = name !== "bare-proxy"
        ? { base: String(proxy.hello.url), key: String(proxy.hello.key), catalog: true }
        : { base: String(proxy.hello.url), key: "bench", catalog: false };
      log(`${name} (fresh process): ${streamCount} open streams`);
      const spec = chatRequest(endpoint, { stream: true, model: "slow" });
      results.openStreams[name] = await openStreams(layout, proxy, spec, streamCount);
      await proxy.stop();
    }
  }

  // Earlier code side by side (`--baseline`): fresh processes, all on the proxy core at once,
  // against the simulator as it is and against one that waits before every chat answer.
  if (baselineEntries.length > 0) {
    const waitSim = await spawnDeno(
      "simulator (waiting)",
      `${root}/scripts/simulator/openai/main.ts`,
      [
        "--port",
        "0",
        "--chat-wait-ms",
        String(BASELINE_UPSTREAM_WAIT_MS),
      ],
      { cpu: layout.loadCpu, config: layout.config },
    );
    children.push(waitSim);
    const trees: BaselineTree[] = [];
    for (const entry of baselineEntries) {
      trees.push(await prepareBaseline(entry, root, layout.tempDir));
    }
    results.baseline = await measureBaselines(layout, {
      here: { label: "this checkout", dir: root },
      trees,
      upstreams: [
        { simV1, waitMs: 0 },
        { simV1: String(waitSim.hello.line), waitMs: BASELINE_UPSTREAM_WAIT_MS },
      ],
      streams: [false, true].filter((stream) =>
        scenarios.includes(stream ? "stream" : "non-stream")
      ),
      rounds: baselineRounds,
      rate: baselineRate,
      warmupSeconds,
      durationSeconds: closedSeconds,
      paced: { rate, durationSeconds: pacedSeconds, connections },
      track: (process) => children.push(process),
      smoke: smokeTest,
      log,
    });
    await waitSim.stop();
  }

  // The peers go last, after every row of ours, one at a time: a peer that times out (LiteLLM on
  // the paced runs) keeps the proxy core and the simulator busy with its backlog for minutes,
  // which the 10:02 run measured in its router and slow-upstream rows, and a peer still starting
  // up would share the core with the one being measured.
  if (values.peers) {
    for (const peer of PEERS) {
      const outcome = await startPeer(peer, {
        dir: layout.tempDir,
        simV1,
        cpu: layout.proxyCpu,
        log,
      });
      if ("skipped" in outcome) {
        log(`${peer}: skipped: ${outcome.skipped}`);
        results.peers[peer] = { skipped: outcome.skipped };
        continue;
      }
      children.push(outcome.ok.process);
      processes[peer] = outcome.ok.process;
      endpoints[peer] = outcome.ok.endpoint;
      peerTargets.push(peer);
      results.peers[peer] = { version: outcome.ok.version };
      log(`${peer} ${outcome.ok.version} at ${outcome.ok.endpoint.base}`);
      await untilQuiet(outcome.ok.process.pid, peer);
      for (const scenario of scenarios.filter((s) => PEER_SCENARIOS.includes(s))) {
        await measure(scenario, peer);
      }
      await outcome.ok.process.stop();
      // Production-shaped: the peer started again, fresh, in front of the scenario's upstream.
      for (const scenario of prodScenarios) {
        const again = await startPeer(peer, {
          dir: layout.tempDir,
          simV1: prodV1(scenario),
          cpu: layout.proxyCpu,
          log,
        });
        if ("skipped" in again) {
          log(`${peer}: skipped in ${scenario}: ${again.skipped}`);
          (results.peers[peer].failed ??= {})[scenario] = again.skipped;
          continue;
        }
        children.push(again.ok.process);
        await untilQuiet(again.ok.process.pid, peer);
        await measureProduction(scenario, peer, again.ok.process, again.ok.endpoint);
        await again.ok.process.stop();
      }
    }
  }

  const markdown = renderMarkdown(results);
  console.log(markdown);
  if (values.json !== undefined) {
    await Deno.writeTextFile(values.json, JSON.stringify(results, null, 2) + "\n");
  }
  if (!values["no-write"]) {
    const docPath = values.doc ?? `${root}/docs/performance.md`;
    const doc = await Deno.readTextFile(docPath).catch(() => "# Performance\n");
    await Deno.mkdir(docPath.replace(/[^/]*$/, "") || ".", { recursive: true });
    const markers = onPostgres ? POSTGRES_MARKERS : undefined;
    await Deno.writeTextFile(docPath, replaceSection(doc, markdown, markers));
    // Keep the page as `deno fmt --check` (the check task) wants it.
    await new Deno.Command(Deno.execPath(), {
      args: ["fmt", `--config=${layout.config}`, docPath],
      stdout: "null",
      stderr: "null",
    }).output();
    log(`wrote ${docPath}`);
  }
  const missed = targetRows(results).filter((t) => t.met === false).length;
  const further = checks(results).filter((c) => !c.pass).length;
  log(
    `${missed === 0 ? "every target met" : `${missed} target(s) missed`}` +
      (further === 0 ? "" : `; ${further} further check(s) missed`),
  );
} catch (error) {
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  for (const child of children) {
    const tail = child.stderrTail().trim();
    if (tail) log(`${child.name} stderr (tail):\n${tail.slice(-1500)}`);
  }
  Deno.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await stopAll();
}

/** What a benchmarked process of ours prints on SIGUSR1 (loop_delay.ts). */
interface ProbeReport {
  loopDelay?: LatencySummary;
  /** Sovra: the store's group commits since it started, and the writes they carried. */
  commits?: number;
  writes?: number;
}

/**
 * The proxy's event-loop delay since the previous call (loop_delay.ts), and its counters: SIGUSR1,
 * then the JSON line it prints.
 */
async function loopDelay(proxy: BenchProcess): Promise<ProbeReport | undefined> {
  Deno.kill(proxy.pid, LOOP_DELAY_SIGNAL);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const line = await Promise.race([
    proxy.nextLine(),
    new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), 5_000)),
  ]);
  clearTimeout(timer);
  if (line === undefined || !line.startsWith("{")) return undefined;
  return JSON.parse(line) as ProbeReport;
}

/** Commits per request between two reports (undefined where the process has no store). */
function commitsPer(
  before: ProbeReport | undefined,
  after: ProbeReport | undefined,
  requests: number,
): number | undefined {
  if (before?.commits === undefined || after?.commits === undefined || requests <= 0) {
    return undefined;
  }
  return (after.commits - before.commits) / requests;
}

/** One request per target and scenario before measuring: a 200 with a complete body. */
async function smokeTest(spec: ReturnType<typeof chatRequest>, label: string): Promise<void> {
  const res = await fetch(spec.url, {
    method: "POST",
    headers: spec.headers,
    body: spec.body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) {
    throw new Error(`Smoke test '${label}' answered ${res.status}: ${text.slice(0, 300)}`);
  }
}
