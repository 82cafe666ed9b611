/**
 * The shipped provider request schemas (`catalog/provider_schemas/*.json`): every provider of
 * the shipped catalog names one, each parses, each endpoint names its sources with the date
 * they were read, and the Mistral extract holds what Mistral's published schema says (no
 * `stream_options`, no `name` on system/user messages, `random_seed`, `output_dimension`,
 * `voice_id`). A bad schema file stops the load naming the file and the JSON path.
 */
import assert from "node:assert/strict";
import { ProviderRequestSchema } from "../../src/catalog/provider_schema.ts";
import { loadCatalog } from "../../src/catalog/load.ts";
import { DIALECTS } from "../../src/providers/registry.ts";
import { SHIPPED_CATALOG } from "../helpers/shipped_catalog.ts";
import { tempDir } from "../helpers/temp_dir.ts";

async function readSchema(file: string) {
  return ProviderRequestSchema.parse(
    JSON.parse(await Deno.readTextFile(`${SHIPPED_CATALOG}/${file}`)),
  );
}

Deno.test("provider schemas — every shipped provider names one; each endpoint has dated sources", async () => {
  const providers = JSON.parse(await Deno.readTextFile(`${SHIPPED_CATALOG}/providers.json`))
    .providers as Record<string, { request_schema?: string }>;
  for (const [id, provider] of Object.entries(providers)) {
    assert.ok(provider.request_schema, `${id} names a request_schema`);
    const schema = await readSchema(provider.request_schema);
    const endpoints = Object.values(schema.endpoints);
    assert.ok(endpoints.length > 0, id);
    for (const endpoint of endpoints) {
      for (const source of endpoint!.sources) assert.match(source.retrieved, /^\d{4}-\d{2}-\d{2}$/);
    }
  }
});

Deno.test("provider schemas — Mistral's extract matches its published schema", async () => {
  const mistral = await readSchema("provider_schemas/mistral.json");
  const chat = mistral.endpoints.chat!;
  assert.equal(chat.unknown_fields, "reject");
  assert.equal(chat.fields.includes("stream_options"), false);
  assert.equal(chat.fields.includes("max_completion_tokens"), false);
  assert.equal(chat.stream_usage, "always");
  assert.deepEqual(chat.rename, { seed: "random_seed" });
  assert.deepEqual(chat.messages?.user, ["role", "content"]);
  assert.deepEqual(chat.messages?.system, ["role", "content"]);
  assert.equal(chat.messages?.assistant?.includes("reasoning_details"), false);
  assert.deepEqual(chat.values.reasoning_effort, ["high", "none"]);
  const embeddings = mistral.endpoints.embeddings!;
  assert.equal(embeddings.rename.dimensions, "output_dimension");
  assert.equal(embeddings.fields.includes("user"), false);
  assert.equal(mistral.endpoints.speech!.rename.voice, "voice_id");
  assert.deepEqual(mistral.rejection, { status: 422, shape: "mistral" });
});

Deno.test("provider schemas — a bad schema file stops the load naming file and path", async () => {
  await using tmp = await tempDir({ prefix: "sovra-schema-" });
  await Deno.mkdir(`${tmp.path}/s`);
  await Deno.writeTextFile(
    `${tmp.path}/providers.json`,
    JSON.stringify({
      version: 1,
      providers: {
        p: { dialect: "openai", base_url: "https://x.example/v1", request_schema: "s/p.json" },
      },
    }),
  );
  await Deno.writeTextFile(`${tmp.path}/models.json`, JSON.stringify({ version: 1, models: [] }));
  await Deno.writeTextFile(
    `${tmp.path}/s/p.json`,
    JSON.stringify({ version: 1, endpoints: { chat: { sources: [], fields: ["model"] } } }),
  );
  await assert.rejects(
    () => loadCatalog(tmp.path, DIALECTS),
    (error: Error) => {
      assert.match(error.message, /s\/p\.json: at endpoints\.chat\.sources: /);
      return true;
    },
  );
  await Deno.remove(`${tmp.path}/s/p.json`);
  await assert.rejects(() => loadCatalog(tmp.path, DIALECTS), /s\/p\.json: cannot be read/);
});
