/**
 * Request latency through a PostgreSQL outage (docs/performance.md, "Serving through an
 * outage"): `main.ts` as `deno task start` runs it (two isolates) on a throwaway cluster, in
 * front of the openai simulator, under a paced load of non-stream chat requests; the database
 * is stopped for `--outage` seconds, then started again. Prints p50 / p95 / max per phase
 * (before, while stopped, after) and the latency of the first requests after the restart.
 *
 *   deno run -A scripts/bench/outage_latency.ts [--rate 20] [--before 5] [--outage 10]
 *     [--after 5] [--lease-ms 15000]
 */
import { parseArgs } from "node:util";
import { startPostgres } from "../postgres_cluster.ts";
import { startOpenAISimulator } from "../simulator/openai/mod.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rate: { type: "string", default: "20" },
    before: { type: "string", default: "5" },
    outage: { type: "string", default: "10" },
    after: { type: "string", default: "5" },
    "lease-ms": { type: "string", default: "15000" },
  },
});
const rate = Number(values.rate);
const root = new URL("../../", import.meta.url).pathname;

const cluster = await startPostgres();
const sim = await startOpenAISimulator({ apiKey: "sim-key", recordRequests: false });
const dir = await Deno.makeTempDir({ prefix: "sovra-outage-bench-" });
let gateway: Deno.ChildProcess | undefined;
try {
  const url = await cluster.database();
  await Deno.mkdir(`${dir}/catalog`);
  await Deno.writeTextFile(
    `${dir}/catalog/providers.json`,
    JSON.stringify({
      version: 1,
      providers: { sim: { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" } },
    }),
  );
  await Deno.writeTextFile(
    `${dir}/catalog/models.json`,
    JSON.stringify({
      version: 1,
      models: [{
        id: "bench/chat",
        kind: "chat",
        sovereignty: "strict",
        pricing: { prompt_micro_eur_per_million: 1_000_000 },
        routes: [{ provider: "sim", upstream_model: "sim-chat" }],
      }],
    }),
  );
  const setup = await openPgStore(url, { spillPath: undefined });
  const org = await runAdminCommand(setup, {
    command: ["org", "create"],
    flags: { name: "Outage bench", "credits-micro-eur": "1000000000000" },
    defaultRpm: 600,
  }) as { id: string };
  const { key } = await runAdminCommand(setup, {
    command: ["key", "create"],
    flags: { org: org.id, rpm: "10000000" },
    defaultRpm: 600,
  }) as { key: string };
  await setup.close();

  const tasks = JSON.parse(await Deno.readTextFile(`${root}deno.json`)).tasks;
  const command = String(tasks.start).split(/\s+/);
  const flags = command.slice(command.indexOf("run") + 1, command.indexOf("main.ts"));
  gateway = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, "main.ts"],
    cwd: root,
    env: {
      SOVRA_PORT: "0",
      SOVRA_DASHBOARD_PORT: "0",
      SOVRA_DATABASE_URL: url,
      SOVRA_SPILL_PATH: `${dir}/spill.jsonl`,
      SOVRA_CATALOG: `${dir}/catalog`,
      SOVRA_WORKERS: "2",
      SOVRA_INSTANCE_LEASE_MS: String(values["lease-ms"]),
      SOVRA_LOG: "info",
      SIM_KEY: "sim-key",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = gateway.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let base = "";
  for (let buffered = ""; base === "";) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`the gateway did not start:\n${buffered}`);
    buffered += value;
    const line = buffered.split("\n").find((l) => l.includes("sovra listening"));
    if (line) base = JSON.parse(line).url;
  }
  void (async () => {
    while (!(await lines.read()).done) { /* drain */ }
  })();

  type Phase = "before" | "stopped" | "after";
  const samples: Array<{ phase: Phase; at: number; ms: number; status: number }> = [];
  let phase: Phase = "before";
  let resumedAt = Infinity;
  let running = true;
  const inFlight = new Set<Promise<void>>();
  const one = async () => {
    const started = performance.now();
    const p = phase;
    let status = 0;
    const client = Deno.createHttpClient({});
    try {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        client,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "bench/chat", messages: [{ role: "user", content: "hi" }] }),
      });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = -1;
    } finally {
      client.close();
    }
    samples.push({ phase: p, at: started, ms: performance.now() - started, status });
  };
  const pacer = (async () => {
    const gap = 1000 / rate;
    for (let next = performance.now(); running; next += gap) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const request = one();
      inFlight.add(request);
      request.finally(() => inFlight.delete(request));
    }
  })();
  const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
  await sleep(Number(values.before));
  phase = "stopped";
  await cluster.pause();
  await sleep(Number(values.outage));
  await cluster.resume();
  phase = "after";
  resumedAt = performance.now();
  await sleep(Number(values.after));
  running = false;
  await pacer;
  await Promise.all([...inFlight]);

  const quantile = (xs: number[], q: number) =>
    xs.length === 0
      ? NaN
      : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  const rows = (["before", "stopped", "after"] as const).map((name) => {
    const ms = samples.filter((s) => s.phase === name).map((s) => s.ms);
    const failed = samples.filter((s) => s.phase === name && s.status !== 200).length;
    return {
      phase: name,
      requests: ms.length,
      failed,
      p50: quantile(ms, 0.5),
      p95: quantile(ms, 0.95),
      max: Math.max(...ms),
    };
  });
  console.log(`| phase | requests | not 200 | p50 ms | p95 ms | max ms |`);
  console.log(`| --- | --- | --- | --- | --- | --- |`);
  for (const r of rows) {
    console.log(
      `| ${r.phase} | ${r.requests} | ${r.failed} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${
        r.max.toFixed(1)
      } |`,
    );
  }
  const firstAfter = samples.filter((s) => s.at >= resumedAt).sort((a, b) => a.at - b.at).slice(
    0,
    5,
  );
  console.log(
    `first requests after the restart (ms): ${firstAfter.map((s) => s.ms.toFixed(1)).join(", ")}`,
  );
} finally {
  try {
    gateway?.kill("SIGTERM");
    await gateway?.status;
  } catch { /* gone */ }
  await sim.close();
  await cluster.stop();
  await Deno.remove(dir, { recursive: true });
}
