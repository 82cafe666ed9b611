/**
 * The shipped catalog (`catalog/`) in front of the three simulators, as the demo serves it: every
 * `openai`-dialect provider behind the simulator URL of its own request schema, so the
 * simulator refuses what that provider refuses (Mistral: 422 `extra_forbidden`). A gateway on
 * 127.0.0.1, a KV file, an organization with credit and a key.
 */
import { configFromEnv } from "../../src/config.ts";
import { type Gateway, startGateway } from "../../src/gateway.ts";
import { silentLogger } from "../../src/log.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { type OpenAISimulator, startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { writeSimulatedCatalog } from "../../scripts/simulated_catalog.ts";
import { startPlatforms } from "./platforms.ts";
import type { BedrockSimulator } from "../../scripts/simulator/bedrock/mod.ts";
import type { VertexSimulator } from "../../scripts/simulator/vertex/mod.ts";

export const SHIPPED_CATALOG = new URL("../../catalog", import.meta.url).pathname;

export interface ShippedGateway extends AsyncDisposable {
  gateway: Gateway;
  url: string;
  key: string;
  openai: OpenAISimulator;
  bedrock: BedrockSimulator;
  vertex: VertexSimulator;
  /** The catalog directory the gateway serves (a copy, with simulator URLs). */
  catalogDir: string;
  /** The environment holding every provider credential the catalog names. */
  env: Record<string, string>;
  /** The organization the key belongs to. */
  org: string;
  post(path: string, body: unknown): Promise<Response>;
  /** An admin command on the gateway's store (`routing create` …). */
  admin(command: string[], flags: Record<string, string>): Promise<unknown>;
  /** Every field any simulator saw outside its provider's schema. */
  violations(): unknown[];
}

/** `edit` may change the copied catalog files before the gateway loads them. */
export async function startShippedGateway(
  edit?: (dir: string) => Promise<void>,
): Promise<ShippedGateway> {
  const dir = await Deno.makeTempDir({ prefix: "sovra-shipped-" });
  const openai = await startOpenAISimulator();
  const platforms = await startPlatforms();
  const catalogDir = `${dir}/catalog`;
  const lists = await writeSimulatedCatalog(SHIPPED_CATALOG, catalogDir, {
    openai: openai.url,
    bedrock: platforms.bedrock.url,
    vertex: { url: platforms.vertex.url, tokenUrl: platforms.vertex.tokenUrl },
  });
  for (const [schema, ids] of Object.entries(lists)) openai.serveModels(schema, ids);
  // The shipped providers name their own credential variables: give each a value.
  const providers = JSON.parse(await Deno.readTextFile(`${catalogDir}/providers.json`));
  const env: Record<string, string> = {
    AWS_ACCESS_KEY_ID: platforms.env.E2E_AWS_ACCESS_KEY_ID!,
    AWS_SECRET_ACCESS_KEY: platforms.env.E2E_AWS_SECRET!,
    GOOGLE_VERTEX_SERVICE_ACCOUNT_JSON: platforms.env.E2E_VERTEX_SA!,
  };
  for (const p of Object.values(providers.providers) as Array<{ api_key_env?: string }>) {
    if (p.api_key_env) env[p.api_key_env] = `sim-${p.api_key_env.toLowerCase()}-0123456789`;
  }
  await edit?.(catalogDir);
  const config = configFromEnv({
    SOVRA_PORT: "0",
    SOVRA_KV: `${dir}/sovra.kv`,
    SOVRA_CATALOG: catalogDir,
    SOVRA_ALLOW_LOCAL_UPSTREAMS: "true",
    ...env,
  });
  const gateway = await startGateway(config, { log: silentLogger });
  const store = gateway.deps.store;
  const org = await runAdminCommand(store, {
    command: ["org", "create"],
    flags: { name: "Shipped", "credits-micro-eur": "1000000000000" },
    defaultRpm: 600,
  }) as { id: string };
  const key = await runAdminCommand(store, {
    command: ["key", "create"],
    flags: { org: org.id, rpm: "100000" },
    defaultRpm: 600,
  }) as { key: string };
  return {
    gateway,
    url: gateway.url,
    key: key.key,
    openai,
    bedrock: platforms.bedrock,
    vertex: platforms.vertex,
    catalogDir,
    env,
    org: org.id,
    admin: (command, flags) =>
      runAdminCommand(store, {
        command,
        flags,
        defaultRpm: 600,
        catalog: () => Promise.resolve(gateway.deps.catalog.current),
      }),
    post: (path, body) =>
      fetch(`${gateway.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    violations: () => [
      ...openai.violations,
      ...platforms.bedrock.violations,
      ...platforms.vertex.violations,
    ],
    async [Symbol.asyncDispose]() {
      await gateway.close();
      await openai.close();
      await platforms.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
