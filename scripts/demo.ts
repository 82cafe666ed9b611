/**
 * `deno task demo`: the gateway on its embedded default — the shipped catalog with every
 * provider pointed at local simulators, KV under ./data, a demo organization with credit and
 * a fresh API key, and the exact `curl` to try.
 */
import { configFromEnv } from "../src/config.ts";
import { startGateway } from "../src/gateway.ts";
import { createLogger } from "../src/log.ts";
import { runAdminCommand } from "../src/admin/commands.ts";
import { startOpenAISimulator } from "./simulator/openai/mod.ts";
import { startBedrockSimulator } from "./simulator/bedrock/mod.ts";
import { startVertexSimulator } from "./simulator/vertex/mod.ts";
import { writeSimulatedCatalog } from "./simulated_catalog.ts";
import { describeBindError } from "../src/http/port_in_use.ts";
import { startDashboardBeside } from "../src/dashboard/server.ts";
import { ensureDemoAccounts } from "../src/dashboard/demo_accounts.ts";

const env = Deno.env.toObject();
const base = configFromEnv(env);
// Check the API's and the dashboard's ports before anything is written: a second demo on a busy
// port must fail without touching the first one's files.
for (
  const [port, variable] of [[base.port, "SOVRA_PORT"], [
    base.dashboardPort,
    "SOVRA_DASHBOARD_PORT",
  ]] as const
) {
  try {
    Deno.listen({ hostname: base.host, port }).close();
  } catch (error) {
    const reason = describeBindError(error, variable, base.host, port).message;
    console.error(`The demo could not start: ${reason}`);
    Deno.exit(1);
  }
}
const openai = await startOpenAISimulator({ recordRequests: false });
// Simulated platform credentials: the simulators verify SigV4 and the JWT grant for real.
const aws = {
  accessKeyId: "AKIDDEMO00000000SOVRA",
  secretAccessKey: "demo-secret-access-key",
  region: "eu-central-1",
};
const bedrock = startBedrockSimulator(aws);
const vertex = await startVertexSimulator();
// This process's own catalog, pointing at this process's simulators: another demo never
// rewrites it (it would point at simulators that died with that demo).
const catalogDir = await Deno.makeTempDir({ prefix: "sovra-demo-catalog-" });
const modelLists = await writeSimulatedCatalog(env.SOVRA_CATALOG || "./catalog", catalogDir, {
  openai: openai.url,
  bedrock: bedrock.url,
  vertex: { url: vertex.url, tokenUrl: vertex.tokenUrl },
});
// Each simulated provider lists the models the catalog routes to it (`catalog probe` compares).
for (const [schema, ids] of Object.entries(modelLists)) openai.serveModels(schema, ids);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    Deno.removeSync(catalogDir, { recursive: true });
    Deno.exit(0);
  });
}

// The simulated openai-dialect providers take any Bearer key: give each one a placeholder.
const providerKeys = Object.fromEntries(
  Object.values(
    (JSON.parse(await Deno.readTextFile(`${catalogDir}/providers.json`)) as {
      providers: Record<string, { api_key_env?: string }>;
    }).providers,
  ).flatMap((p) => p.api_key_env ? [[p.api_key_env, "sovra-demo-simulator-key"]] : []),
);

const config = configFromEnv({
  ...env,
  ...providerKeys,
  SOVRA_CATALOG: catalogDir,
  SOVRA_ALLOW_LOCAL_UPSTREAMS: "true", // the simulators run on this machine
  // Prometheus /metrics on its own port (a free one unless set).
  SOVRA_METRICS_PORT: env.SOVRA_METRICS_PORT || "0",
  AWS_ACCESS_KEY_ID: aws.accessKeyId,
  AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
  AWS_SESSION_TOKEN: "",
  GOOGLE_VERTEX_SERVICE_ACCOUNT_JSON: vertex.serviceAccountJson,
});
const log = createLogger(config.logLevel);
const gateway = await startGateway(config, { log, signals: true }).catch((error) => {
  Deno.removeSync(catalogDir, { recursive: true });
  console.error(`The demo could not start: ${(error as Error).message}`);
  Deno.exit(1);
});
const store = gateway.deps.store;

const existing = (await store.listOrgs()).find((o) => o.name === "Demo organization");
const org = existing ?? await store.createOrg(
  {
    id: `org_demo${crypto.randomUUID().slice(0, 8)}`,
    name: "Demo organization",
    created: new Date().toISOString(),
  },
  100_000_000n, // 100 EUR
);
if (org.balance_micro_eur <= 0) await store.topUp(org.id, 100_000_000n);
const key = await runAdminCommand(store, {
  command: ["key", "create"],
  flags: { org: org.id, name: "demo" },
  defaultRpm: config.defaultRpm,
}) as { id: string; key: string };

const dashboard = (() => {
  try {
    return startDashboardBeside(gateway, log);
  } catch (error) {
    const reason = describeBindError(
      error,
      "SOVRA_DASHBOARD_PORT",
      config.host,
      config.dashboardPort,
    );
    console.error(`The dashboard could not start: ${reason.message}`);
    Deno.exit(1);
  }
})();
const logins = await ensureDemoAccounts(
  dashboard.deps.accounts,
  org.id,
  config.passwordScryptLogN,
);

const model = gateway.deps.catalog.current.activeModels().find((m) =>
  m.kind === "chat" && m.sovereignty === "strict"
);
console.log(`
Sovra demo is running.
  API:          ${gateway.url}   (simulated upstream providers at ${openai.url})
  Catalog:      ${catalogDir}   (this demo's own; edit and send SIGHUP to reload)
  Organization: ${org.id} (Demo organization)
  API key:      ${key.key}   (shown once; id ${key.id})

Try it:
  curl -s ${gateway.url}/v1/chat/completions \\
    -H "Authorization: Bearer ${key.key}" \\
    -H "Content-Type: application/json" \\
    -d '{"model": "${model?.id}", "messages": [{"role": "user", "content": "Hello from the EU"}]}'

  Dashboard:    ${dashboard.url}
    owner:      ${logins.owner.email}      password ${logins.owner.password}
    operator:   ${logins.operator.email}   password ${logins.operator.password}
    (fresh passwords on every demo start)

Then see it recorded:
  SOVRA_KV=${config.kvPath} npx -y deno@2.9.6 task admin requests --org ${org.id}

Metrics (Prometheus):
  curl -s http://${config.host}:${gateway.metricsPort}/metrics | grep -E '^(sovra|gen_ai)_'
Traces: start the demo with OTEL_DENO=true OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318
  (any OTLP/HTTP receiver; see docs/operations.md).
`);
