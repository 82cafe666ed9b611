/**
 * Sovra as the benchmark serves it: the real gateway (auth, rate limit, credits, request
 * metadata all on) in front of the openai simulator, with a catalog written for the run,
 * a real KV file in a temp dir (or the PostgreSQL database of `--database-url`, with its spill
 * file in the temp dir), an org with plenty of credit and a key with a huge rpm.
 *
 *   deno run -A scripts/bench/sovra_server.ts --upstream http://127.0.0.1:PORT/v1 [--kv PATH|:memory:]
 *     [--database-url postgres://…] [--workers N (SOVRA_WORKERS, default 1)]
 *     [--admission-wait on|off]
 *
 * Prints one JSON line on stdout: `{"url", "key", "pid", "state", "models"}`. Stops on SIGTERM/SIGINT
 * and removes what it created. SIGUSR1 prints the event-loop delay since the last one (loop_delay.ts)
 * and the store's group commits so far (`commits`, and `writes` they carried).
 *
 * `--admission-wait off` is a measurement lever of the benchmark only (`--baseline`,
 * baseline.ts), never a gateway setting: the rate increment is queued without an admission
 * record and nothing waits for it. It shows what the durable admission record costs on its
 * own; the gateway itself has no such mode.
 */
import { parseArgs } from "node:util";
import { startGatewayWorkers } from "../../src/workers/pool.ts";
import { createLogger } from "../../src/log.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { BENCH_MODELS, ROUTER_POLICY, ROUTER_POOL_EXTRA } from "./workload.ts";
import { reportLoopDelayOnSignal } from "./loop_delay.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    upstream: { type: "string" },
    kv: { type: "string" },
    "database-url": { type: "string" },
    port: { type: "string", default: "0" },
    workers: { type: "string", default: "1" },
    "admission-wait": { type: "string", default: "on" },
  },
});
if (values.upstream === undefined) {
  console.error("Missing --upstream (the simulator's base URL ending in /v1).");
  Deno.exit(2);
}

const admissionWait = values["admission-wait"];
if (admissionWait !== "on" && admissionWait !== "off") {
  console.error(`--admission-wait must be on or off, got '${admissionWait}'.`);
  Deno.exit(2);
}
if (admissionWait === "off" && values.workers !== "1") {
  // Worker isolates build their own stores; the lever below reaches the primary's only.
  console.error("--admission-wait off needs --workers 1.");
  Deno.exit(2);
}

const UPSTREAM_KEY_ENV = "BENCH_UPSTREAM_KEY";
const tempDir = await Deno.makeTempDir({ prefix: "sovra-bench-" });
const catalogDir = `${tempDir}/catalog`;
await Deno.mkdir(catalogDir);
const providers = {
  version: 1,
  providers: {
    sim: { dialect: "openai", base_url: values.upstream, api_key_env: UPSTREAM_KEY_ENV },
  },
};
const models = {
  version: 1,
  models: [...Object.values(BENCH_MODELS), ROUTER_POOL_EXTRA].map((m) => ({
    id: m.id,
    kind: "chat",
    sovereignty: "strict",
    pricing: {
      prompt_micro_eur_per_million: m === ROUTER_POOL_EXTRA ? 200_000 : 1_000_000,
      completion_micro_eur_per_million: m === ROUTER_POOL_EXTRA ? 600_000 : 3_000_000,
    },
    supported_parameters: ["temperature", "max_tokens"],
    // The router's pool: a strong and a light model (the light one cheaper, weaker).
    quality: { overall: m === ROUTER_POOL_EXTRA ? 0.3 : 0.8 },
    routes: [{ provider: "sim", upstream_model: m.upstream }],
  })),
};
await Deno.writeTextFile(`${catalogDir}/providers.json`, JSON.stringify(providers));
await Deno.writeTextFile(`${catalogDir}/models.json`, JSON.stringify(models));

const gateway = await startGatewayWorkers({
  SOVRA_PORT: values.port,
  SOVRA_KV: values.kv ?? `${tempDir}/sovra.kv`,
  ...(values["database-url"] === undefined ? {} : {
    SOVRA_DATABASE_URL: values["database-url"],
    SOVRA_SPILL_PATH: `${tempDir}/spill.jsonl`,
  }),
  SOVRA_CATALOG: catalogDir,
  SOVRA_LOG: "warn",
  SOVRA_WORKERS: values.workers,
  [UPSTREAM_KEY_ENV]: "bench-upstream-secret",
}, { log: createLogger("warn") });
if (admissionWait === "off") {
  const store = gateway.deps.store;
  const countRequest = store.countRequest.bind(store);
  // The increment alone, with the settles' interval, and resolved at once: no record, no wait.
  store.countRequest = (keyId, minute, onSent) => {
    countRequest(keyId, minute, onSent).catch((error) => console.error(error));
    return Promise.resolve();
  };
}
const admin = async (command: string[], flags: Record<string, string>) => {
  const result = await runAdminCommand(gateway.deps.store, {
    command,
    flags,
    defaultRpm: 600,
    catalog: () => Promise.resolve(gateway.deps.catalog.current),
  });
  if (Array.isArray(result)) throw new Error("Expected one object from the admin command.");
  return result;
};
const org = await admin(["org", "create"], {
  name: "Bench org",
  "credits-micro-eur": "1000000000000000",
});
const key = await admin(["key", "create"], { org: String(org.id), rpm: "1000000000" });
await admin(["routing", "create"], {
  org: String(org.id),
  id: ROUTER_POLICY,
  pool: `${ROUTER_POOL_EXTRA.id},${BENCH_MODELS.chat.id}`,
  threshold: "5",
});

console.log(JSON.stringify({
  url: gateway.url,
  key: String(key.key),
  pid: Deno.pid,
  state: gateway.deps.store.health?.().backend ?? "kv",
  models: Object.values(BENCH_MODELS).map((m) => m.id),
}));

// The store's group commits so far (the primary isolate's): the runner divides them by the
// requests of a measurement (commits per request, what each admission's urgent commit costs).
reportLoopDelayOnSignal(undefined, () => {
  const { values } = gateway.deps.telemetry.metrics.commitBatchSize.json();
  const total = (name: string) => values.find((v) => v.metricName === name)?.value ?? 0;
  return Promise.resolve({
    commits: total("sovra_commit_batch_size_count"),
    writes: total("sovra_commit_batch_size_sum"),
  });
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await gateway.close();
  await Deno.remove(tempDir, { recursive: true }).catch(() => {});
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
