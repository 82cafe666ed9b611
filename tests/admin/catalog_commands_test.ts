/**
 * `deno task admin catalog check` (offline) and `catalog probe [--provider P]` (online) through
 * the real CLI process. Check: the shipped catalog passes; each kind of problem (a parameter
 * the provider's schema lacks, a context above the primary route's, a price without source and
 * date, an active model past its retirement, an unknown successor) exits 1. Probe: against the
 * simulators with the shipped catalog every route answers; a retired upstream model and a field
 * the provider rejects come back as the provider's error, exit 1, and no credential is printed.
 */
import assert from "node:assert/strict";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { writeSimulatedCatalog } from "../../scripts/simulated_catalog.ts";
import { startPlatforms } from "../helpers/platforms.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { SHIPPED_CATALOG } from "../helpers/shipped_catalog.ts";

const ADMIN = new URL("../../scripts/admin.ts", import.meta.url).pathname;

async function admin(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-net", ADMIN, ...args],
    env: { SOVRA_KV: ":memory:", SOVRA_LOG: "error", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

async function copyCatalog(to: string): Promise<void> {
  await Deno.mkdir(`${to}/provider_schemas`, { recursive: true });
  for (const name of ["providers.json", "models.json"]) {
    await Deno.copyFile(`${SHIPPED_CATALOG}/${name}`, `${to}/${name}`);
  }
  for await (const entry of Deno.readDir(`${SHIPPED_CATALOG}/provider_schemas`)) {
    await Deno.copyFile(
      `${SHIPPED_CATALOG}/provider_schemas/${entry.name}`,
      `${to}/provider_schemas/${entry.name}`,
    );
  }
}

async function editModels(dir: string, edit: (models: Array<Record<string, unknown>>) => void) {
  const file = JSON.parse(await Deno.readTextFile(`${dir}/models.json`));
  delete file.$schema;
  edit(file.models);
  await Deno.writeTextFile(`${dir}/models.json`, JSON.stringify(file));
}

Deno.test("admin catalog check — the shipped catalog passes (warnings only)", async () => {
  const out = await admin(["catalog", "check"], { SOVRA_CATALOG: SHIPPED_CATALOG });
  assert.equal(out.code, 0, out.stderr);
  const report = JSON.parse(out.stdout);
  assert.equal(report.ok, true);
  assert.deepEqual(report.problems, []);
  assert.ok(report.models >= 40 && report.routes >= 50);
  // Claude Sonnet 4 is deprecated: told, not a problem.
  assert.ok(
    report.warnings.some((w: { subject: string }) => w.subject.includes("claude-sonnet-4'")),
  );
});

Deno.test("admin catalog check — each problem is named and exits 1", async () => {
  await using tmp = await tempDir({ prefix: "sovra-check-" });
  await copyCatalog(tmp.path);
  await editModels(tmp.path, (models) => {
    const byId = (id: string) => models.find((m) => m.id === id)!;
    (byId("mistral/mistral-large-2512").supported_parameters as string[]).push("top_k");
    byId("mistral/codestral-2508").context_length = 262144;
    (byId("mistral/codestral-2508").routes as Array<Record<string, unknown>>)[0]!.context_length =
      131072;
    byId("baai/bge-m3").$comment = "BGE-M3.";
    byId("qwen/qwen3-32b").retires_on = "2026-01-01";
    byId("openai/gpt-oss-20b").successor = "openai/gpt-oss-21b";
  });
  const out = await admin(["catalog", "check"], { SOVRA_CATALOG: tmp.path });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /"error":"catalog check: 5 problem\(s\)/);
  const report = JSON.parse(out.stdout);
  const problems = report.problems.map((p: { subject: string; message: string }) =>
    `${p.subject}: ${p.message}`
  );
  assert.equal(problems.length, 5, problems.join("\n"));
  const has = (pattern: RegExp) =>
    assert.ok(problems.some((p: string) => pattern.test(p)), pattern.source);
  has(
    /route mistral\/mistral-large-2512 .*lists 'top_k', which mistral's chat schema does not take/,
  );
  has(
    /route mistral\/codestral-2508 .*context_length 262144 is above what its primary route accepts \(131072\)/,
  );
  has(/model 'baai\/bge-m3'.*no price source with a date/);
  has(/model 'qwen\/qwen3-32b'.*retired on 2026-01-01 but still active/);
  has(/model 'openai\/gpt-oss-20b'.*successor 'openai\/gpt-oss-21b' is not in the catalog/);
});

/** The shipped catalog on the simulators, as the probe's operator would have it. */
async function simulatedCatalog(dir: string) {
  const openai = await startOpenAISimulator();
  const platforms = await startPlatforms();
  const lists = await writeSimulatedCatalog(SHIPPED_CATALOG, dir, {
    openai: openai.url,
    bedrock: platforms.bedrock.url,
    vertex: { url: platforms.vertex.url, tokenUrl: platforms.vertex.tokenUrl },
  });
  for (const [schema, ids] of Object.entries(lists)) openai.serveModels(schema, ids);
  const providers = JSON.parse(await Deno.readTextFile(`${dir}/providers.json`)).providers;
  const env: Record<string, string> = {
    SOVRA_CATALOG: dir,
    AWS_ACCESS_KEY_ID: platforms.env.E2E_AWS_ACCESS_KEY_ID!,
    AWS_SECRET_ACCESS_KEY: platforms.env.E2E_AWS_SECRET!,
    GOOGLE_VERTEX_SERVICE_ACCOUNT_JSON: platforms.env.E2E_VERTEX_SA!,
  };
  for (const p of Object.values(providers) as Array<{ api_key_env?: string }>) {
    if (p.api_key_env) env[p.api_key_env] = `probe-secret-${p.api_key_env}-7f3a9c`;
  }
  return {
    openai,
    platforms,
    env,
    lists,
    async [Symbol.asyncDispose]() {
      await openai.close();
      await platforms.close();
    },
  };
}

type Line = { route: string; model: string; check: string; ok: boolean; error?: string };
const parse = (stdout: string): Line[] => stdout.trim().split("\n").map((l) => JSON.parse(l));

Deno.test("admin catalog probe — every route of the shipped catalog answers on the simulators", async () => {
  await using tmp = await tempDir({ prefix: "sovra-probe-" });
  await using sims = await simulatedCatalog(tmp.path);
  const out = await admin(["catalog", "probe"], sims.env);
  assert.equal(out.code, 0, out.stderr + out.stdout);
  const lines = parse(out.stdout);
  assert.ok(lines.every((l) => l.ok), JSON.stringify(lines.filter((l) => !l.ok)));
  const checks = new Set(lines.map((l) => l.check));
  assert.deepEqual(
    [...checks].sort(),
    ["chat", "chat-stream", "embeddings", "listed", "speech", "transcription"],
  );
  // Each chat route: one request of each kind, max_tokens 1.
  const chat = sims.openai.requests.filter((r) => r.path === "/v1/chat/completions");
  assert.ok(chat.length > 20);
  for (const r of chat) assert.equal((r.body as { max_tokens?: number }).max_tokens, 1);
  assert.ok(
    sims.platforms.bedrock.requests.length > 0 && sims.platforms.vertex.requests.length > 0,
  );
  assert.deepEqual(sims.openai.violations, []);
});

Deno.test("admin catalog probe --provider — a retired upstream model and a rejected field are the provider's errors, exit 1, no credential printed", async () => {
  await using tmp = await tempDir({ prefix: "sovra-probe-" });
  await using sims = await simulatedCatalog(tmp.path);
  // The provider stopped serving one id; an operator's schema edit lets a field Mistral refuses through.
  await editModels(tmp.path, (models) => {
    const codestral = models.find((m) => m.id === "mistral/codestral-2508")!;
    (codestral.routes as Array<Record<string, unknown>>)[0]!.upstream_model =
      "codestral-2508+retired";
  });
  sims.openai.serveModels("mistral", sims.lists.mistral!.filter((id) => id !== "codestral-2508"));
  const schemaFile = `${tmp.path}/provider_schemas/mistral.json`;
  const schema = JSON.parse(await Deno.readTextFile(schemaFile));
  schema.endpoints.chat.fields.push("stream_options");
  schema.endpoints.chat.stream_usage = "on_request";
  await Deno.writeTextFile(schemaFile, JSON.stringify(schema));

  const out = await admin(["catalog", "probe", "--provider", "mistral"], sims.env);
  assert.equal(out.code, 1);
  const lines = parse(out.stdout);
  assert.ok(lines.every((l) => l.route.startsWith("mistral/")), "only Mistral's routes");
  const find = (route: string, check: string) =>
    lines.find((l) => l.route === route && l.check === check)!;
  const listed = find("mistral/codestral-2508+retired", "listed");
  assert.equal(listed.ok, false);
  assert.match(listed.error!, /is not in mistral's model list/);
  assert.match(find("mistral/codestral-2508+retired", "chat").error!, /404/);
  const large = "mistral/mistral-large-2512";
  assert.equal(find(large, "chat").ok, true);
  const streamed = find(large, "chat-stream");
  assert.equal(streamed.ok, false);
  assert.match(streamed.error!, /422.*extra_forbidden.*stream_options/);
  assert.match(out.stderr, /catalog probe: \d+ of \d+ checks failed/);
  for (const secret of Object.values(sims.env)) {
    if (!secret.startsWith("probe-secret-")) continue;
    assert.equal(out.stdout.includes(secret) || out.stderr.includes(secret), false);
  }
  // The key did reach the provider.
  assert.ok(
    sims.openai.requests.some((r) => r.headers.authorization?.startsWith("Bearer probe-secret-")),
  );
});

Deno.test("admin routing create — a deprecated pool model is saved with a warning naming its successor", async () => {
  await using tmp = await tempDir({ prefix: "sovra-routing-warn-" });
  const env = { SOVRA_KV: `${tmp.path}/a.kv`, SOVRA_CATALOG: SHIPPED_CATALOG };
  const org = JSON.parse((await admin(["org", "create", "--name", "W"], env)).stdout).id;
  const out = await admin([
    "routing",
    "create",
    "--org",
    org,
    "--id",
    "p",
    "--pool",
    "anthropic/claude-sonnet-4,mistral/mistral-large-2512",
  ], env);
  assert.equal(out.code, 0, out.stderr);
  const created = JSON.parse(out.stdout);
  assert.deepEqual(created.pool, ["anthropic/claude-sonnet-4", "mistral/mistral-large-2512"]);
  assert.deepEqual(created.warnings, [
    "model 'anthropic/claude-sonnet-4' deprecated on 2026-06-15; successor 'anthropic/claude-sonnet-4-5'",
  ]);
  assert.match(out.stderr, /"warning":"model 'anthropic\/claude-sonnet-4' deprecated/);
});
