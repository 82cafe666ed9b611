/**
 * The gateway in its own process (`main.ts`), in front of the openai-dialect simulator
 * running in the test process: a frozen gateway main thread cannot freeze the test's probes,
 * and the process can be killed with SIGKILL.
 */
import { SIM_KEY, type TestModel, writeCatalog } from "../helpers/harness.ts";
import { type OpenAISimulator, startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { logRecord, type MainProcess, startMain } from "../contract/process_support.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";

export interface ProcessGateway extends AsyncDisposable {
  url: string;
  key: string;
  /** Keys of `extraKeys`, in order, each in an organization of its own. */
  extra: string[];
  org: string;
  kvPath: string;
  main: MainProcess;
  sim: OpenAISimulator;
  /** Starts a further process on the same store and catalog. */
  startAnother(env?: Record<string, string>): Promise<{ url: string; main: MainProcess }>;
  close(): Promise<void>;
}

export interface ProcessGatewayOptions {
  models: TestModel[];
  credits?: number;
  rpm?: number;
  env?: Record<string, string>;
  /** A soft open-file limit for the gateway process. */
  fdLimit?: number;
  /** A soft open-file limit only (the hard one stays). */
  softFdLimit?: number;
  /** Further organizations, one key each (e.g. no credit: 402; rpm 1: 429). */
  extraKeys?: Array<{ credits: number; rpm: number }>;
  /** The start command's flags instead of `-A` (contract/process_support.ts). */
  flags?: string[];
}

async function listening(main: MainProcess): Promise<string> {
  const line = await main.waitForLine((l) => l.includes("sovra listening"));
  return String(logRecord(line).url);
}

export async function startProcessGateway(
  options: ProcessGatewayOptions,
): Promise<ProcessGateway> {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-attack-" });
  const kvPath = `${dir}/sovra.kv`;
  const catalogDir = `${dir}/catalog`;
  await Deno.mkdir(catalogDir);
  await writeCatalog(
    catalogDir,
    {
      "sim-a": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
      "sim-b": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
    },
    options.models,
  );
  const store = await openKvStore(kvPath);
  let org: string;
  let key: string;
  const extra: string[] = [];
  try {
    const created = await runAdminCommand(store, {
      command: ["org", "create"],
      flags: { name: "Attack org", "credits-micro-eur": String(options.credits ?? 1_000_000_000) },
      defaultRpm: 600,
    }) as { id: string };
    org = created.id;
    const made = await runAdminCommand(store, {
      command: ["key", "create"],
      flags: { org, rpm: String(options.rpm ?? 1_000_000) },
      defaultRpm: 600,
    }) as { key: string };
    key = made.key;
    for (const extraKey of options.extraKeys ?? []) {
      const other = await runAdminCommand(store, {
        command: ["org", "create"],
        flags: { name: "Attack org", "credits-micro-eur": String(extraKey.credits) },
        defaultRpm: 600,
      }) as { id: string };
      const otherKey = await runAdminCommand(store, {
        command: ["key", "create"],
        flags: { org: other.id, rpm: String(extraKey.rpm) },
        defaultRpm: 600,
      }) as { key: string };
      extra.push(otherKey.key);
    }
  } finally {
    await store.close();
  }
  const env = (extra: Record<string, string> = {}) => ({
    SOVRA_PORT: "0",
    SOVRA_DASHBOARD_PORT: "0",
    SOVRA_KV: kvPath,
    SOVRA_CATALOG: catalogDir,
    SOVRA_LOG: "warn",
    SIM_KEY,
    ...options.env,
    ...extra,
  });
  const others: MainProcess[] = [];
  const main = startMain(env({ SOVRA_LOG: "info" }), {
    fdLimit: options.fdLimit,
    ...(options.softFdLimit ? { softFdLimit: options.softFdLimit } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
  });
  const url = await listening(main);
  return {
    url,
    key,
    extra,
    org,
    kvPath,
    main,
    sim,
    async startAnother(extra = {}) {
      const other = startMain(env({ SOVRA_LOG: "info", ...extra }));
      others.push(other);
      return { url: await listening(other), main: other };
    },
    async close() {
      for (const other of others) await other.stop();
      await main.stop();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
    [Symbol.asyncDispose](this: { close(): Promise<void> }) {
      return this.close();
    },
  };
}

/** GET /healthz answered 200 within `ms` (false on a timeout or error). */
export async function healthzWithin(url: string, ms: number): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(ms) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}
