/**
 * A throwaway gateway for external clients (schemathesis, the Python SDK quickstart): the
 * shipped catalog in front of the simulators, a temp KV file, an organization with credit and a
 * key with a high rate limit. Prints one JSON line `{"url", "key", "model"}` on stdout and
 * serves until SIGTERM/SIGINT, then removes its files.
 */
import { configFromEnv } from "../src/config.ts";
import { startGateway } from "../src/gateway.ts";
import { createLogger } from "../src/log.ts";
import { runAdminCommand } from "../src/admin/commands.ts";
import { startOpenAISimulator } from "./simulator/openai/mod.ts";
import { startBedrockSimulator } from "./simulator/bedrock/mod.ts";
import { startVertexSimulator } from "./simulator/vertex/mod.ts";
import { writeSimulatedCatalog } from "./simulated_catalog.ts";

const dir = await Deno.makeTempDir({ prefix: "sovra-client-target-" });
const openai = await startOpenAISimulator({ recordRequests: false });
const aws = {
  accessKeyId: "AKIDCLIENT0000000SOVRA",
  secretAccessKey: "client-target-secret",
  region: "eu-central-1",
};
const bedrock = startBedrockSimulator(aws);
const vertex = await startVertexSimulator();
await writeSimulatedCatalog(new URL("../catalog", import.meta.url).pathname, dir, {
  openai: openai.url,
  bedrock: bedrock.url,
  vertex: { url: vertex.url, tokenUrl: vertex.tokenUrl },
});
const providers = JSON.parse(await Deno.readTextFile(`${dir}/providers.json`)) as {
  providers: Record<string, { api_key_env?: string }>;
};
const keys = Object.fromEntries(
  Object.values(providers.providers).flatMap((p) =>
    p.api_key_env ? [[p.api_key_env, "sovra-client-target-key"]] : []
  ),
);
const config = configFromEnv({
  ...keys,
  SOVRA_PORT: "0",
  SOVRA_KV: `${dir}/sovra.kv`,
  SOVRA_CATALOG: dir,
  SOVRA_LOG: Deno.env.get("SOVRA_LOG") ?? "error",
  AWS_ACCESS_KEY_ID: aws.accessKeyId,
  AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
  GOOGLE_VERTEX_SERVICE_ACCOUNT_JSON: vertex.serviceAccountJson,
});
const gateway = await startGateway(config, { log: createLogger(config.logLevel) });
const store = gateway.deps.store;
const org = await runAdminCommand(store, {
  command: ["org", "create"],
  flags: { name: "Client target", "credits-micro-eur": "1000000000000" },
  defaultRpm: config.defaultRpm,
}) as { id: string };
const key = await runAdminCommand(store, {
  command: ["key", "create"],
  flags: { org: org.id, rpm: "1000000" },
  defaultRpm: config.defaultRpm,
}) as { key: string };

const stop = async () => {
  await gateway.close();
  await Promise.all([openai.close(), bedrock.close(), vertex.close()]);
  await Deno.remove(dir, { recursive: true });
  Deno.exit(0);
};
for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, stop);
console.log(
  JSON.stringify({ url: gateway.url, key: key.key, model: "mistral/mistral-small-2506" }),
);
