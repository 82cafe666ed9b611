/**
 * Starts a real gateway (real HTTP on 127.0.0.1, real Deno KV in a temp file) in front of the
 * openai-dialect simulator, with a catalog written for the test, an organization with
 * credit and an API key.
 */
import OpenAI from "openai";
import { configFromEnv } from "../../src/config.ts";
import { type Gateway, startGateway } from "../../src/gateway.ts";
import { silentLogger } from "../../src/log.ts";
import { type OpenAISimulator, startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import type { KvStore } from "../../src/state/kv/kv_store.ts";

export const SIM_KEY = "sim-upstream-secret-0123456789";

export interface TestModel {
  id: string;
  kind?: "chat" | "embedding" | "transcription" | "speech" | "moderation";
  supported_parameters?: string[];
  pricing?: Record<string, number>;
  routes: Array<{ provider: string; upstream_model: string; dialect?: string }>;
  [extra: string]: unknown;
}

export interface HarnessOptions {
  models: TestModel[];
  /** Extra providers (merged over the two simulator providers `sim-a` and `sim-b`). */
  providers?: Record<string, Record<string, unknown>>;
  env?: Record<string, string>;
  credits?: number;
  rpm?: number;
  now?: () => number;
}

/** `await using h = await startHarness(…)` closes the gateway, simulator and temp files at the end of the scope. */
export interface Harness extends AsyncDisposable {
  gateway: Gateway;
  url: string;
  sim: OpenAISimulator;
  store: KvStore;
  org: string;
  keyId: string;
  key: string;
  catalogDir: string;
  kvPath: string;
  client: OpenAI;
  /** fetch against the gateway with the key (JSON body). */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  admin(command: string[], flags?: Record<string, string>): Promise<Record<string, unknown>>;
  /** Waits until every queued KV write is durable. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_CHAT_PARAMS = [
  "temperature",
  "top_p",
  "max_tokens",
  "stop",
  "n",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "reasoning",
  "user",
];

export function chatModel(
  id: string,
  upstream: string | string[],
  extra: Partial<TestModel> = {},
): TestModel {
  const upstreams = Array.isArray(upstream) ? upstream : [upstream];
  return {
    id,
    kind: "chat",
    sovereignty: "strict",
    pricing: {
      prompt_micro_eur_per_million: 1_000_000,
      completion_micro_eur_per_million: 3_000_000,
    },
    supported_parameters: DEFAULT_CHAT_PARAMS,
    routes: upstreams.map((u, i) => ({ provider: i === 0 ? "sim-a" : "sim-b", upstream_model: u })),
    ...extra,
  };
}

export async function writeCatalog(
  dir: string,
  providers: Record<string, unknown>,
  models: unknown[],
): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/providers.json`,
    JSON.stringify({ version: 1, providers }, null, 2),
  );
  await Deno.writeTextFile(`${dir}/models.json`, JSON.stringify({ version: 1, models }, null, 2));
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const catalogDir = await Deno.makeTempDir({ prefix: "sovra-catalog-" });
  const kvDir = await Deno.makeTempDir({ prefix: "sovra-kv-" });
  const kvPath = `${kvDir}/sovra.kv`;
  const providers = {
    "sim-a": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
    "sim-b": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
    ...options.providers,
  };
  const models = options.models.map((m) => ({ sovereignty: "strict", kind: "chat", ...m }));
  await writeCatalog(catalogDir, providers, models);
  const config = configFromEnv({
    SOVRA_PORT: "0",
    SOVRA_KV: kvPath,
    SOVRA_CATALOG: catalogDir,
    SIM_KEY,
    ...options.env,
  });
  const gateway = await startGateway(config, {
    log: silentLogger,
    ...(options.now ? { now: options.now } : {}),
  });
  const store = gateway.deps.store as KvStore;
  const admin = async (command: string[], flags: Record<string, string> = {}) => {
    const result = await runAdminCommand(store, {
      command,
      flags,
      defaultRpm: 600,
      webhookAllowLocal: gateway.deps.config.webhookAllowLocal,
      secretKey: gateway.deps.config.secretKey,
      catalog: () => Promise.resolve(gateway.deps.catalog.current),
    });
    if (Array.isArray(result)) throw new Error("expected one object");
    return result;
  };
  const org = await admin(["org", "create"], {
    name: "Test org",
    "credits-micro-eur": String(options.credits ?? 1_000_000_000),
  });
  const key = await admin(["key", "create"], {
    org: String(org.id),
    rpm: String(options.rpm ?? 10_000),
  });
  const url = gateway.url;
  return {
    gateway,
    url,
    sim,
    store,
    org: String(org.id),
    keyId: String(key.id),
    key: String(key.key),
    catalogDir,
    kvPath,
    client: new OpenAI({ baseURL: `${url}/v1`, apiKey: String(key.key), maxRetries: 0 }),
    post: (path, body, headers = {}) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.key}`,
          "content-type": "application/json",
          ...headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    admin,
    flushed: async () => {
      await gateway.deps.settler.idle();
      await store.flushed();
    },
    async close() {
      await gateway.close();
      await sim.close();
      await Deno.remove(catalogDir, { recursive: true });
      await Deno.remove(kvDir, { recursive: true });
    },
    // Through `this`, so a harness that spreads this one and replaces `close` disposes its own.
    [Symbol.asyncDispose](this: { close(): Promise<void> }) {
      return this.close();
    },
  };
}
