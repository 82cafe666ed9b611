/**
 * Operator contract "Catalog directory": a bad file stops the start with a message naming
 * the file, the JSON path and the problem; a reload takes a good edit and keeps the old
 * catalog on a bad one.
 */
import assert from "node:assert/strict";
import { loadCatalog } from "../../src/catalog/load.ts";
import { DIALECTS } from "../../src/providers/registry.ts";
import { configFromEnv } from "../../src/config.ts";
import { startGateway } from "../../src/gateway.ts";
import { silentLogger } from "../../src/log.ts";
import { chatModel, type Harness, startHarness, writeCatalog } from "../helpers/harness.ts";
import { chatBody, getWithKey } from "../helpers/api.ts";
import { tempDir } from "../helpers/temp_dir.ts";

const PROVIDERS = {
  "sim-a": { dialect: "openai", base_url: "http://127.0.0.1:9/v1", api_key_env: "SIM_KEY" },
};

function goodModels(): Record<string, unknown>[] {
  return [
    { ...chatModel("acme/one", "sim-chat") },
    { ...chatModel("acme/two", "sim-chat") },
  ];
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  await using tmp = await tempDir({ prefix: "sovra-bad-catalog-" });
  const dir = tmp.path;
  await fn(dir);
}

async function rejectsWith(dir: string, ...fragments: string[]): Promise<void> {
  await assert.rejects(() => loadCatalog(dir, DIALECTS), (error: Error) => {
    for (const fragment of fragments) {
      assert.ok(error.message.includes(fragment), `'${fragment}' not in: ${error.message}`);
    }
    return true;
  });
}

Deno.test("loadCatalog — a good catalog loads", async () => {
  await withDir(async (dir) => {
    await writeCatalog(dir, PROVIDERS, goodModels());
    const catalog = await loadCatalog(dir, DIALECTS);
    assert.deepEqual(catalog.activeModels().map((m) => m.id), ["acme/one", "acme/two"]);
  });
});

Deno.test("loadCatalog — an unknown route provider names models.json and models[1].routes[0].provider", async () => {
  await withDir(async (dir) => {
    const models = goodModels();
    models[1] = { ...models[1], routes: [{ provider: "nobody", upstream_model: "x" }] };
    await writeCatalog(dir, PROVIDERS, models);
    await rejectsWith(dir, `${dir}/models.json`, "models[1].routes[0].provider", "nobody");
  });
});

Deno.test("loadCatalog — a moderation model: never a client model, needs its injection categories and the openai dialect", async () => {
  const moderation = {
    id: "acme/guard",
    kind: "moderation",
    sovereignty: "strict",
    moderation: { injection_categories: ["jailbreaking"] },
    routes: [{ provider: "sim-a", upstream_model: "guard" }],
  };
  await withDir(async (dir) => {
    await writeCatalog(dir, PROVIDERS, [...goodModels(), moderation]);
    const catalog = await loadCatalog(dir, DIALECTS);
    assert.deepEqual(catalog.activeModels().map((m) => m.id), ["acme/one", "acme/two"]);
    assert.equal(catalog.moderationModel("acme/guard")?.id, "acme/guard");
    assert.equal(catalog.moderationModel("acme/one"), undefined);
    assert.throws(() => catalog.requireModel("acme/guard", "chat"), /acme\/guard/);
  });
  await withDir(async (dir) => {
    const { moderation: _, ...bare } = moderation;
    await writeCatalog(dir, PROVIDERS, [...goodModels(), bare]);
    await rejectsWith(dir, "models[2].moderation", "injection_categories");
  });
  await withDir(async (dir) => {
    await writeCatalog(dir, PROVIDERS, [{ ...goodModels()[0], moderation: moderation.moderation }]);
    await rejectsWith(dir, "models[0].moderation", "only allowed on moderation models");
  });
  await withDir(async (dir) => {
    const providers = {
      ...PROVIDERS,
      bed: {
        dialect: "bedrock",
        base_url: "http://127.0.0.1:9",
        aws: {
          region: "eu-central-1",
          access_key_id_env: "A",
          secret_access_key_env: "B",
        },
      },
    };
    const onBedrock = { ...moderation, routes: [{ provider: "bed", upstream_model: "guard" }] };
    await writeCatalog(dir, providers, [...goodModels(), onBedrock]);
    await rejectsWith(
      dir,
      "models[2].routes[0].dialect",
      "moderation models need the 'openai' dialect",
    );
  });
});

Deno.test("loadCatalog — a price given as a string names the file and the price's path", async () => {
  await withDir(async (dir) => {
    const models = goodModels();
    models[0] = { ...models[0], pricing: { prompt_micro_eur_per_million: "5" } };
    await writeCatalog(dir, PROVIDERS, models);
    await rejectsWith(dir, `${dir}/models.json`, "models[0].pricing.prompt_micro_eur_per_million");
  });
});

Deno.test("loadCatalog — a bad provider dialect names providers.json and the provider's path", async () => {
  await withDir(async (dir) => {
    await writeCatalog(
      dir,
      { "sim-a": { ...PROVIDERS["sim-a"], dialect: "smoke-signals" } },
      goodModels(),
    );
    await rejectsWith(dir, `${dir}/providers.json`, "providers.sim-a.dialect");
  });
});

Deno.test("loadCatalog — invalid JSON names the file", async () => {
  await withDir(async (dir) => {
    await writeCatalog(dir, PROVIDERS, goodModels());
    await Deno.writeTextFile(`${dir}/models.json`, '{"version": 1, "models": [');
    await rejectsWith(dir, `${dir}/models.json`);
  });
});

Deno.test("startGateway — a bad catalog stops the start with the file and JSON path", async () => {
  await withDir(async (dir) => {
    const models = goodModels();
    models[1] = { ...models[1], kind: "hologram" };
    await writeCatalog(dir, PROVIDERS, models);
    const config = configFromEnv({ SOVRA_PORT: "0", SOVRA_KV: ":memory:", SOVRA_CATALOG: dir });
    await assert.rejects(() => startGateway(config, { log: silentLogger }), (error: Error) => {
      assert.ok(error.message.includes(`${dir}/models.json`), error.message);
      assert.ok(error.message.includes("models[1].kind"), error.message);
      return true;
    });
  });
});

async function modelIds(h: Harness): Promise<string[]> {
  const res = await getWithKey(`${h.url}/v1/models`, h.key);
  const body = await res.json() as { data: Array<{ id: string }> };
  return body.data.map((m) => m.id);
}

Deno.test("reloadCatalog — a good edit serves the new model; a bad edit keeps the old catalog", async () => {
  await using h = await startHarness({ models: [chatModel("acme/one", "sim-chat")] });
  const providers = {
    "sim-a": { dialect: "openai", base_url: h.sim.url, api_key_env: "SIM_KEY" },
  };
  assert.deepEqual(await modelIds(h), ["acme/one"]);
  const before = await h.post("/v1/chat/completions", chatBody("acme/new"));
  assert.equal(before.status, 404);
  await before.body?.cancel();

  const edited = [chatModel("acme/one", "sim-chat"), chatModel("acme/new", "sim-chat")];
  await writeCatalog(h.catalogDir, providers, edited);
  assert.equal(await h.gateway.reloadCatalog(), true);
  assert.deepEqual(await modelIds(h), ["acme/one", "acme/new"]);
  const served = await h.post("/v1/chat/completions", chatBody("acme/new"));
  assert.equal(served.status, 200, await served.clone().text());
  await served.body?.cancel();

  // A bad edit: unknown provider on the new model, then broken JSON.
  const bad = [chatModel("acme/one", "sim-chat"), {
    ...chatModel("acme/new", "x"),
    routes: [{ provider: "gone", upstream_model: "x" }],
  }];
  await writeCatalog(h.catalogDir, providers, bad);
  assert.equal(await h.gateway.reloadCatalog(), false);
  await Deno.writeTextFile(`${h.catalogDir}/models.json`, "{ not json");
  assert.equal(await h.gateway.reloadCatalog(), false);

  assert.deepEqual(await modelIds(h), ["acme/one", "acme/new"]);
  const still = await h.post("/v1/chat/completions", chatBody("acme/new"));
  assert.equal(still.status, 200);
  await still.body?.cancel();
});
