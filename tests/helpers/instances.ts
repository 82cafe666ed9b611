/**
 * Gateway processes as an operator starts them (`deno task start`'s permission flags), on one
 * KV file or one PostgreSQL database, in front of the openai simulator of the test process;
 * organizations and keys made before the first start. For the instance and fleet bounds:
 * several isolates per process (`SOVRA_WORKERS`), several processes on one store.
 */
import { SIM_KEY, type TestModel, writeCatalog } from "./harness.ts";
import { type OpenAISimulator, startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import {
  logRecord,
  type MainProcess,
  startMain,
  taskStartFlags,
} from "../contract/process_support.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import type { Store } from "../../src/state/store.ts";

export interface Account {
  org: string;
  key: string;
  keyId: string;
}

export interface Instance {
  url: string;
  main: MainProcess;
  /** The process's `/metrics` (every isolate summed), when `SOVRA_METRICS_PORT` is set. */
  metrics?: string;
}

export interface Instances extends AsyncDisposable {
  sim: OpenAISimulator;
  dir: string;
  accounts: Account[];
  /** Starts one more gateway process (`env` over the common environment). */
  start(env?: Record<string, string>): Promise<Instance>;
  /** The store the processes share, opened by the test (closed with the setup). */
  store(): Promise<Store>;
}

export interface InstancesOptions {
  models: TestModel[];
  /** One organization and key each. */
  accounts: Array<{ credits: number; rpm?: number; budget?: { micro: number; period: string } }>;
  /** PostgreSQL (`SOVRA_DATABASE_URL`); absent: a KV file. */
  databaseUrl?: string;
  env?: Record<string, string>;
}

export async function startInstances(options: InstancesOptions): Promise<Instances> {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY, recordRequests: true });
  const dir = await Deno.makeTempDir({ prefix: "sovra-instances-" });
  const kvPath = `${dir}/sovra.kv`;
  await Deno.mkdir(`${dir}/catalog`);
  await writeCatalog(`${dir}/catalog`, {
    "sim-a": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
    "sim-b": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
  }, options.models);
  const open = () =>
    options.databaseUrl
      ? openPgStore(options.databaseUrl, { spillPath: undefined })
      : openKvStore(kvPath);
  const accounts: Account[] = [];
  const setup = await open();
  try {
    for (const account of options.accounts) {
      const org = await runAdminCommand(setup, {
        command: ["org", "create"],
        flags: { name: "Instance org", "credits-micro-eur": String(account.credits) },
        defaultRpm: 600,
      }) as { id: string };
      const { key, id } = await runAdminCommand(setup, {
        command: ["key", "create"],
        flags: {
          org: org.id,
          rpm: String(account.rpm ?? 1_000_000),
          ...(account.budget
            ? { budget: String(account.budget.micro), period: account.budget.period }
            : {}),
        },
        defaultRpm: 600,
      }) as { key: string; id: string };
      accounts.push({ org: org.id, key, keyId: id });
    }
  } finally {
    await setup.close();
  }
  const started: MainProcess[] = [];
  let opened: Store | undefined;
  return {
    sim,
    dir,
    accounts,
    async start(env = {}) {
      const index = started.length;
      const main = startMain({
        SOVRA_PORT: "0",
        SOVRA_DASHBOARD_PORT: "0",
        SOVRA_CATALOG: `${dir}/catalog`,
        SOVRA_LOG: "info",
        SIM_KEY,
        ...(options.databaseUrl
          ? {
            SOVRA_DATABASE_URL: options.databaseUrl,
            SOVRA_SPILL_PATH: `${dir}/spill-${index}.jsonl`,
          }
          : { SOVRA_KV: kvPath }),
        ...options.env,
        ...env,
      }, { flags: taskStartFlags() });
      started.push(main);
      const line = await main.waitForLine((l) => l.includes("sovra listening"));
      const listening = logRecord(line);
      return {
        url: String(listening.url),
        main,
        ...(listening.metrics ? { metrics: String(listening.metrics) } : {}),
      };
    },
    async store() {
      opened ??= await open();
      return opened;
    },
    async [Symbol.asyncDispose]() {
      for (const main of started) await main.stop();
      await opened?.close();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * Sends `count` requests at once, each on a connection of its own (so the kernel spreads them
 * over the isolates), and returns their statuses in order.
 */
export async function burst(
  count: number,
  request: (i: number, client: Deno.HttpClient) => Promise<Response>,
): Promise<number[]> {
  return await Promise.all(Array.from({ length: count }, async (_, i) => {
    const client = Deno.createHttpClient({});
    try {
      const res = await request(i, client);
      await res.arrayBuffer().catch(() => {});
      return res.status;
    } finally {
      client.close();
    }
  }));
}

/** The prices of the instance tests' chat model: 10 µEUR a prompt token, 60 a completion token. */
export const INSTANCE_PRICING = {
  prompt_micro_eur_per_million: 10_000_000,
  completion_micro_eur_per_million: 60_000_000,
};
const INSTANCE_CONTENT = "Hello there";
const INSTANCE_MAX_TOKENS = 16;
/** The hold of one `instanceChat` (admission_estimate.ts): (3 + 3 + characters) prompt + max_tokens. */
export const INSTANCE_HOLD = (6 + INSTANCE_CONTENT.length) * 10 + INSTANCE_MAX_TOKENS * 60;

/** One small chat request to `acme/chat` with the account's key, on its own connection. */
export function instanceChat(
  url: string,
  account: Account,
  client: Deno.HttpClient,
  stream = false,
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    client,
    headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "acme/chat",
      messages: [{ role: "user", content: INSTANCE_CONTENT }],
      max_tokens: INSTANCE_MAX_TOKENS,
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }),
  });
}
