/**
 * Operator contract "Catalog directory": `aws` only for `bedrock`, `vertex` only for
 * `vertex-anthropic`, zero prices may be omitted, and a route's `dialect` overrides its
 * provider's (served for real through the openai-dialect simulator).
 */
import assert from "node:assert/strict";
import { CatalogError, loadCatalog } from "../../src/catalog/load.ts";
import { DIALECTS } from "../../src/providers/registry.ts";
import { configFromEnv } from "../../src/config.ts";
import { startGateway } from "../../src/gateway.ts";
import { silentLogger } from "../../src/log.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { seedKey } from "./process_support.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { closing } from "../helpers/dispose.ts";

const AWS = { region: "eu-central-1", access_key_id_env: "AK", secret_access_key_env: "SK" };
const VERTEX = { project: "p", region: "europe-west1", service_account_env: "SA" };

function chat(id: string, routes: Record<string, unknown>[], extra: object = {}) {
  return { id, kind: "chat", sovereignty: "strict", routes, ...extra };
}

async function withCatalog<T>(
  providers: Record<string, unknown>,
  models: unknown[],
  body: (dir: string) => Promise<T>,
): Promise<T> {
  await using tmp = await tempDir({ prefix: "sovra-contract-cat-" });
  const dir = tmp.path;
  await Deno.writeTextFile(`${dir}/providers.json`, JSON.stringify({ version: 1, providers }));
  await Deno.writeTextFile(`${dir}/models.json`, JSON.stringify({ version: 1, models }));
  return await body(dir);
}

async function loadError(providers: Record<string, unknown>, models: unknown[]): Promise<string> {
  return await withCatalog(providers, models, async (dir) => {
    try {
      await loadCatalog(dir, DIALECTS);
    } catch (error) {
      assert.ok(error instanceof CatalogError, String(error));
      return error.message;
    }
    assert.fail("the catalog loaded");
  });
}

const OK_MODEL = chat("acme/m", [{ provider: "acme", upstream_model: "m" }]);

Deno.test("loadCatalog — `aws` on a non-bedrock provider and `vertex` on a non-vertex one are refused with their path", async () => {
  const aws = await loadError(
    { acme: { dialect: "openai", base_url: "http://127.0.0.1:9/v1", aws: AWS } },
    [OK_MODEL],
  );
  assert.match(aws, /providers\.json: at providers\.acme\.aws: /);
  const vertex = await loadError(
    { acme: { dialect: "bedrock", base_url: "http://127.0.0.1:9", aws: AWS, vertex: VERTEX } },
    [OK_MODEL],
  );
  assert.match(vertex, /providers\.json: at providers\.acme\.vertex: /);
});

Deno.test("loadCatalog — zero prices may be omitted (no pricing at all, or some prices only)", async () => {
  await withCatalog(
    { acme: { dialect: "openai", base_url: "http://127.0.0.1:9/v1" } },
    [
      OK_MODEL,
      chat("acme/n", [{ provider: "acme", upstream_model: "n" }], {
        pricing: { prompt_micro_eur_per_million: 5 },
      }),
    ],
    async (dir) => {
      const catalog = await loadCatalog(dir, DIALECTS);
      assert.equal(catalog.models.length, 2);
    },
  );
});

Deno.test({
  // Regression (found by the contract audit).
  name: "loadCatalog — a route dialect override without the provider settings it needs is refused",
  async fn() {
    const message = await loadError(
      { acme: { dialect: "openai", base_url: "http://127.0.0.1:9/v1" } },
      [chat("acme/m", [{ provider: "acme", upstream_model: "m", dialect: "bedrock" }])],
    );
    assert.match(message, /models\.json: at models\[0\]\.routes\[0\]\.dialect: /);
  },
});

Deno.test("route dialect — a route's `dialect` overrides its provider's: a vertex-anthropic provider serves one model as openai", async () => {
  const sim = await startOpenAISimulator({ apiKey: "sim-secret-route-dialect" });
  const kvDir = await Deno.makeTempDir({ prefix: "sovra-contract-kv-" });
  try {
    await withCatalog(
      {
        vx: {
          dialect: "vertex-anthropic",
          base_url: sim.url,
          api_key_env: "SIM_KEY",
          vertex: { ...VERTEX, token_url: "http://127.0.0.1:9/token" },
        },
      },
      [chat("acme/open", [{ provider: "vx", upstream_model: "sim-open", dialect: "openai" }], {
        supported_parameters: ["max_tokens"],
      })],
      async (dir) => {
        const kvPath = `${kvDir}/sovra.kv`;
        const { key } = await seedKey(kvPath);
        await using gateway = closing(
          await startGateway(
            configFromEnv({
              SOVRA_PORT: "0",
              SOVRA_KV: kvPath,
              SOVRA_CATALOG: dir,
              SIM_KEY: "sim-secret-route-dialect",
            }),
            { log: silentLogger },
          ),
        );
        const res = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "acme/open",
            messages: [{ role: "user", content: "hi" }],
          }),
        });
        const text = await res.text();
        assert.equal(res.status, 200, text);
        assert.equal(JSON.parse(text).model, "acme/open");
        const upstream = sim.requests.find((r) => r.path.endsWith("/chat/completions"));
        assert.ok(upstream, `no openai-dialect request: ${JSON.stringify(sim.requests)}`);
        assert.equal(upstream.headers.authorization, "Bearer sim-secret-route-dialect");
      },
    );
  } finally {
    await sim.close();
    await Deno.remove(kvDir, { recursive: true });
  }
});
