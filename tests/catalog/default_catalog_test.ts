/**
 * The default catalog shipped in `catalog/`: it must parse with the catalog schemas and
 * hold the mix of models, providers and routes the gateway and its tests rely on.
 */
import assert from "node:assert/strict";
import {
  type Model,
  modelsFileSchema,
  type Provider,
  providersFileSchema,
} from "../../src/catalog/schema.ts";
import { DIALECTS } from "../../src/providers/registry.ts";
import { settingsOf } from "../../src/providers/dialect_module.ts";
import { BEDROCK_SETTINGS } from "../../src/providers/bedrock/settings.ts";
import { VERTEX_SETTINGS } from "../../src/providers/vertex_anthropic/settings.ts";

const providersUrl = new URL("../../catalog/providers.json", import.meta.url);
const modelsUrl = new URL("../../catalog/models.json", import.meta.url);

/** Providers whose owner is an EU company; only these may serve `strict` models. */
const EU_OWNED = new Set([
  "mistral",
  "scaleway",
  "ovhcloud",
  "ovhcloud-tts-de",
  "ionos",
  "stackit",
]);

async function load(): Promise<{ providers: Record<string, Provider>; models: Model[] }> {
  const providers = providersFileSchema(DIALECTS)
    .parse(JSON.parse(await Deno.readTextFile(providersUrl))).providers;
  const models = modelsFileSchema(DIALECTS)
    .parse(JSON.parse(await Deno.readTextFile(modelsUrl))).models;
  return { providers, models };
}

function providerOf(providers: Record<string, Provider>, id: string): Provider {
  const provider = providers[id];
  assert.ok(provider, `route provider '${id}' is not in providers.json`);
  return provider;
}

function distinctRouteProviders(model: Model): Set<string> {
  return new Set(model.routes.map((r) => r.provider));
}

Deno.test("default catalog — both files parse and declare their JSON schema", async () => {
  const rawProviders = JSON.parse(await Deno.readTextFile(providersUrl));
  const rawModels = JSON.parse(await Deno.readTextFile(modelsUrl));
  assert.equal(rawProviders.$schema, "./schema/providers.schema.json");
  assert.equal(rawModels.$schema, "./schema/models.schema.json");
  const { providers, models } = await load();
  assert.ok(Object.keys(providers).length > 0);
  assert.ok(models.length > 0);
});

Deno.test("default catalog — at least 30 models with unique ids", async () => {
  const { models } = await load();
  assert.ok(models.length >= 30, `only ${models.length} models`);
  const ids = models.map((m) => m.id);
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
  assert.deepEqual(duplicates, []);
});

Deno.test("default catalog — every route names a provider of providers.json", async () => {
  const { providers, models } = await load();
  for (const model of models) {
    for (const route of model.routes) providerOf(providers, route.provider);
  }
});

Deno.test("default catalog — at least 6 providers are used and both tiers are present", async () => {
  const { providers, models } = await load();
  const used = new Set(models.flatMap((m) => m.routes.map((r) => r.provider)));
  assert.ok(used.size >= 6, `only ${used.size} providers used`);
  assert.ok(models.some((m) => m.sovereignty === "strict"));
  assert.ok(models.some((m) => m.sovereignty === "pragmatic"));
  const dialects = new Set([...used].map((id) => providerOf(providers, id).dialect));
  assert.deepEqual([...dialects].sort(), ["bedrock", "openai", "riva-tts", "vertex-anthropic"]);
});

Deno.test("default catalog — platform providers carry their real EU endpoints", async () => {
  const { providers } = await load();
  const bedrock = Object.values(providers).find((p) => p.dialect === "bedrock");
  assert.equal(bedrock?.base_url, "https://bedrock-runtime.eu-central-1.amazonaws.com");
  assert.equal(bedrock && settingsOf(BEDROCK_SETTINGS, bedrock)?.region, "eu-central-1");
  const vertex = Object.values(providers).find((p) => p.dialect === "vertex-anthropic");
  assert.equal(vertex?.base_url, "https://europe-west1-aiplatform.googleapis.com");
  assert.equal(vertex && settingsOf(VERTEX_SETTINGS, vertex)?.region, "europe-west1");
  for (const [id, provider] of Object.entries(providers)) {
    if (provider.dialect === "openai" || provider.dialect === "riva-tts") {
      assert.ok(provider.api_key_env, `provider '${id}' has no api_key_env`);
    }
  }
});

Deno.test("default catalog — every model kind is present", async () => {
  const { models } = await load();
  const kinds = new Set(models.map((m) => m.kind));
  assert.deepEqual([...kinds].sort(), [
    "chat",
    "embedding",
    "moderation",
    "speech",
    "transcription",
  ]);
  // The guardrail's remote layer: a moderation model says which answer categories mean injection.
  for (const m of models.filter((m) => m.kind === "moderation")) {
    assert.ok(m.moderation?.injection_categories.length, `moderation '${m.id}' names no category`);
  }
  assert.ok(models.filter((m) => m.kind === "embedding").length >= 2);
  for (const m of models.filter((m) => m.kind === "embedding")) {
    assert.ok(m.context_length, `embedding '${m.id}' has no context_length`);
    assert.ok(m.pricing.prompt_micro_eur_per_million, `embedding '${m.id}' has no prompt price`);
  }
  for (const m of models.filter((m) => m.kind === "transcription")) {
    assert.ok(m.pricing.audio_micro_eur_per_hour, `transcription '${m.id}' has no audio price`);
  }
  for (const m of models.filter((m) => m.kind === "speech")) {
    assert.ok(m.voices && m.voices.length > 0, `speech '${m.id}' has no voices`);
    assert.ok(m.pricing.character_micro_eur_per_million, `speech '${m.id}' has no character price`);
  }
});

Deno.test("default catalog — chat models include reasoning ones and ones without tools", async () => {
  const { models } = await load();
  const chat = models.filter((m) => m.kind === "chat" && m.state === "active");
  const reasoning = chat.filter((m) => m.reasoning !== undefined);
  assert.ok(reasoning.length >= 1);
  assert.ok(reasoning.some((m) => m.reasoning?.mandatory === true));
  assert.ok(reasoning.some((m) => m.reasoning?.mandatory === false));
  for (const m of reasoning) {
    assert.ok(
      m.supported_parameters.includes("reasoning"),
      `'${m.id}' lacks 'reasoning' parameter`,
    );
    const effort = m.reasoning?.default_effort;
    if (effort !== undefined) assert.ok(m.reasoning?.supported_efforts.includes(effort));
  }
  for (const m of chat.filter((m) => m.supported_parameters.includes("reasoning"))) {
    assert.ok(m.reasoning, `'${m.id}' accepts 'reasoning' but has no reasoning block`);
  }
  assert.ok(chat.some((m) => !m.supported_parameters.includes("tools")));
});

Deno.test("default catalog — one disabled model exists", async () => {
  const { models } = await load();
  assert.ok(models.some((m) => m.state === "disabled"));
  assert.ok(models.filter((m) => m.state === "active").length >= 30);
});

Deno.test("default catalog — German speech model: one voice, 1000 characters, wav only", async () => {
  const { models } = await load();
  const german = models.filter((m) =>
    m.kind === "speech" && m.limits?.max_input_characters === 1000
  );
  assert.equal(german.length, 1);
  const [model] = german;
  assert.equal(model?.voices?.length, 1);
  assert.match(model?.voices?.[0] ?? "", /^German/);
  assert.deepEqual(model?.limits?.response_formats, ["wav"]);
});

Deno.test("default catalog — an English-voices-only speech model exists", async () => {
  const { models } = await load();
  const english = models.filter((m) =>
    m.kind === "speech" && (m.voices ?? []).length > 1 &&
    (m.voices ?? []).every((v) => /^(en|gb)_/.test(v))
  );
  assert.ok(english.length >= 1);
});

Deno.test("default catalog — Anthropic models route to both Bedrock and Vertex", async () => {
  const { providers, models } = await load();
  const anthropic = models.filter((m) => m.id.startsWith("anthropic/"));
  assert.ok(anthropic.length >= 2);
  for (const model of anthropic) {
    const dialects = model.routes.map((r) =>
      r.dialect ?? providerOf(providers, r.provider).dialect
    );
    assert.ok(dialects.includes("bedrock"), `'${model.id}' has no bedrock route`);
    assert.ok(dialects.includes("vertex-anthropic"), `'${model.id}' has no vertex route`);
    assert.ok(model.limits?.default_max_tokens, `'${model.id}' has no default_max_tokens`);
    assert.equal(model.sovereignty, "pragmatic");
    for (const route of model.routes) {
      const dialect = route.dialect ?? providerOf(providers, route.provider).dialect;
      if (dialect === "bedrock") assert.match(route.upstream_model, /^eu\.anthropic\.claude-/);
      if (dialect === "vertex-anthropic") {
        assert.match(route.upstream_model, /^claude-[a-z0-9-]+@\d{8}$/);
      }
    }
  }
});

Deno.test("default catalog — a non-Anthropic model is served through Bedrock", async () => {
  const { providers, models } = await load();
  assert.ok(
    models.some((m) =>
      !m.id.startsWith("anthropic/") &&
      m.routes.some((r) => providerOf(providers, r.provider).dialect === "bedrock")
    ),
  );
});

Deno.test("default catalog — at least 10 models have standby routes on other providers", async () => {
  const { models } = await load();
  const withStandby = models.filter((m) => distinctRouteProviders(m).size >= 2);
  assert.ok(withStandby.length >= 10, `only ${withStandby.length} models with a standby provider`);
  for (const model of models) {
    assert.equal(
      distinctRouteProviders(model).size,
      model.routes.length,
      `'${model.id}' repeats a provider`,
    );
  }
});

Deno.test("default catalog — strict models route only to EU-owned openai- or riva-tts-dialect providers", async () => {
  const { providers, models } = await load();
  for (const model of models.filter((m) => m.sovereignty === "strict")) {
    for (const route of model.routes) {
      assert.ok(EU_OWNED.has(route.provider), `strict '${model.id}' routes to '${route.provider}'`);
      const dialect = route.dialect ?? providerOf(providers, route.provider).dialect;
      // riva-tts: OVHcloud's German speech model (NVIDIA Riva's API on an EU-owned provider).
      assert.ok(
        dialect === "openai" || dialect === "riva-tts",
        `strict '${model.id}' uses dialect '${dialect}'`,
      );
    }
  }
});
