/**
 * Spec "GET /v1/models" and "Model (as listed by GET /v1/models)": every active model, the
 * same list for every key, with kind, context_length, sovereignty, pricing (zero prices
 * omitted), reasoning, supported_parameters and voices. Spec "Versioning": /openapi.json.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { chatModel, type Harness, startHarness, type TestModel } from "../helpers/harness.ts";
import { getWithKey } from "../helpers/api.ts";

const MODELS: TestModel[] = [
  chatModel("acme/chat", "sim-chat", {
    context_length: 131072,
    sovereignty: "pragmatic",
    pricing: { prompt_micro_eur_per_million: 0, completion_micro_eur_per_million: 2_500_000 },
    supported_parameters: ["temperature", "max_tokens", "tools", "tool_choice"],
  }),
  chatModel("acme/thinker", "sim-think+reasoning", {
    reasoning: {
      supported_efforts: ["low", "medium", "high"],
      default_effort: "medium",
      supports_max_tokens: true,
      mandatory: false,
    },
    supported_parameters: ["max_tokens", "reasoning"],
  }),
  chatModel("acme/retired", "sim-chat", { state: "disabled" }),
  {
    id: "acme/embed",
    kind: "embedding",
    sovereignty: "strict",
    pricing: { prompt_micro_eur_per_million: 20_000 },
    routes: [{ provider: "sim-a", upstream_model: "sim-embed" }],
  },
  {
    id: "acme/whisper",
    kind: "transcription",
    sovereignty: "strict",
    pricing: { audio_micro_eur_per_hour: 360_000 },
    routes: [{ provider: "sim-a", upstream_model: "sim-whisper" }],
  },
  {
    id: "acme/voice",
    kind: "speech",
    sovereignty: "pragmatic",
    pricing: { character_micro_eur_per_million: 15_000_000 },
    voices: ["alloy", "nova"],
    routes: [{ provider: "sim-a", upstream_model: "sim-tts" }],
  },
];

type Entry = Record<string, unknown>;

async function listModels(h: Harness, key: string): Promise<{ object: unknown; data: Entry[] }> {
  const res = await getWithKey(`${h.url}/v1/models`, key);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

Deno.test("GET /v1/models — OpenAI list envelope of exactly the active models, same for every key", async () => {
  await using h = await startHarness({ models: MODELS });
  const list = await listModels(h, h.key);
  assert.equal(list.object, "list");
  assert.ok(Array.isArray(list.data));
  const ids = list.data.map((m) => m.id);
  assert.deepEqual(
    [...ids].sort(),
    ["acme/chat", "acme/embed", "acme/thinker", "acme/voice", "acme/whisper"],
  );

  // A key of another organization sees the same list.
  const org = await h.admin(["org", "create"], { name: "Other", "credits-micro-eur": "1" });
  const other = await h.admin(["key", "create"], { org: String(org.id) });
  const second = await listModels(h, String(other.key));
  assert.deepEqual(second, list);

  // The official SDK reads it.
  const sdkIds: string[] = [];
  for await (const model of h.client.models.list()) sdkIds.push(model.id);
  assert.deepEqual(sdkIds, ids);
  const otherClient = new OpenAI({
    baseURL: `${h.url}/v1`,
    apiKey: String(other.key),
    maxRetries: 0,
  });
  const page = await otherClient.models.list();
  assert.deepEqual(page.data.map((m) => m.id), ids);
});

Deno.test("GET /v1/models — every field of the spec's Model table, zero prices omitted", async () => {
  await using h = await startHarness({ models: MODELS });
  const list = await listModels(h, h.key);
  const byId = new Map(list.data.map((m) => [m.id as string, m]));

  const chat = byId.get("acme/chat")!;
  assert.equal(typeof chat.kind, "string");
  assert.notEqual(chat.kind, "embedding");
  assert.equal(chat.context_length, 131072);
  assert.equal(chat.sovereignty, "pragmatic");
  assert.deepEqual(chat.pricing, { completion_micro_eur_per_million: 2_500_000 });
  assert.deepEqual(chat.supported_parameters, [
    "temperature",
    "max_tokens",
    "tools",
    "tool_choice",
  ]);
  assert.ok(!("reasoning" in chat), "a model that does not think carries reasoning");
  assert.ok(!("voices" in chat));

  const thinker = byId.get("acme/thinker")!;
  assert.deepEqual(thinker.reasoning, {
    supported_efforts: ["low", "medium", "high"],
    default_effort: "medium",
    supports_max_tokens: true,
    mandatory: false,
  });
  assert.equal(thinker.sovereignty, "strict");
  assert.ok(!("context_length" in thinker), "context_length present where not known");
  assert.deepEqual(thinker.pricing, {
    prompt_micro_eur_per_million: 1_000_000,
    completion_micro_eur_per_million: 3_000_000,
  });
  assert.ok(!(thinker.supported_parameters as string[]).includes("tools"));

  const embed = byId.get("acme/embed")!;
  assert.equal(embed.kind, "embedding");
  assert.deepEqual(embed.pricing, { prompt_micro_eur_per_million: 20_000 });

  const whisper = byId.get("acme/whisper")!;
  assert.equal(typeof whisper.kind, "string");
  assert.ok(!["embedding", chat.kind].includes(whisper.kind), "transcription has its own kind");
  assert.deepEqual(whisper.pricing, { audio_micro_eur_per_hour: 360_000 });

  const voice = byId.get("acme/voice")!;
  assert.ok(
    ![chat.kind, whisper.kind, "embedding"].includes(voice.kind),
    "speech has its own kind",
  );
  assert.deepEqual(voice.voices, ["alloy", "nova"]);
  assert.equal(voice.sovereignty, "pragmatic");
  assert.deepEqual(voice.pricing, { character_micro_eur_per_million: 15_000_000 });

  for (const entry of list.data) {
    assert.ok(["strict", "pragmatic"].includes(entry.sovereignty as string));
    assert.ok(Array.isArray(entry.supported_parameters), `${entry.id}: supported_parameters`);
    for (const price of Object.values(entry.pricing as Record<string, unknown>)) {
      assert.ok(typeof price === "number" && Number.isInteger(price) && price > 0);
    }
  }
});

Deno.test("GET /openapi.json — OpenAPI 3.1, version 1.0.0, chat request body with model and messages", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const res = await getWithKey(`${h.url}/openapi.json`, h.key);
  assert.equal(res.status, 200);
  const doc = await res.json() as Record<string, unknown>;
  assert.match(String(doc.openapi), /^3\.1\.\d+$/);
  assert.equal((doc.info as Record<string, unknown>).version, "1.0.0");
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const path of Object.keys(paths)) {
    assert.ok(
      path.startsWith("/v1/") || ["/healthz", "/readyz", "/openapi.json"].includes(path),
      path,
    );
  }
  const op = paths["/v1/chat/completions"]?.post;
  assert.ok(op, "no POST /v1/chat/completions");
  const body = op.requestBody as { content: Record<string, { schema: Record<string, unknown> }> };
  let schema = body.content["application/json"]?.schema;
  assert.ok(schema);
  const ref = schema.$ref;
  if (typeof ref === "string") {
    // "#/components/schemas/X"
    let target: unknown = doc;
    for (const part of ref.replace(/^#\//, "").split("/")) {
      target = (target as Record<string, unknown>)[part];
    }
    schema = target as Record<string, unknown>;
  }
  const properties = schema.properties as Record<string, unknown>;
  assert.ok(properties.model, "no 'model' property");
  assert.ok(properties.messages, "no 'messages' property");
  assert.ok((schema.required as string[]).includes("model"));
  assert.ok((schema.required as string[]).includes("messages"));
});
