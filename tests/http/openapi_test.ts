/**
 * `/openapi.json` is a valid OpenAPI 3.1 document (checked by a real
 * validator, `@readme/openapi-parser`), served without a key, every path parameter declared and
 * every 200 answer given its schema — the zod schemas that real answers are checked against.
 */
import assert from "node:assert/strict";
import { validate } from "@readme/openapi-parser";
import type { z } from "zod";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import {
  ChatCompletionSchema,
  EmbeddingsListSchema,
  HealthSchema,
  ModelEntrySchema,
  ModelListSchema,
  ResponseObjectSchema,
} from "../../src/http/response_schemas.ts";

type Json = Record<string, unknown>;

async function withHarness(fn: (h: Harness) => Promise<void>): Promise<void> {
  await using h = await startHarness({
    models: [
      chatModel("mistral/mistral-large-2411", "sim-chat"),
      {
        id: "mistral/mistral-embed",
        kind: "embedding",
        routes: [{ provider: "sim-a", upstream_model: "sim-embed" }],
        pricing: { prompt_micro_eur_per_million: 100_000 },
      },
    ],
  });
  await fn(h);
}

Deno.test("GET /openapi.json without a key is a valid OpenAPI 3.1 document", async () => {
  await withHarness(async (h) => {
    const response = await fetch(`${h.url}/openapi.json`);
    assert.equal(response.status, 200);
    const doc = await response.json() as Json;
    // The validator dereferences in place: give it a copy.
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, JSON.stringify("errors" in result ? result.errors : result));
    assert.deepEqual(result.warnings, []);

    const paths = doc.paths as Record<string, Record<string, Json>>;
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const declared = ((op.parameters ?? []) as Json[]).map((p) => p.name);
        assert.deepEqual(declared, names, `${method} ${path}: path parameters`);
        const ok = (op.responses as Record<string, Json>)["200"];
        assert.ok(ok, `${method} ${path}: a 200 response`);
        const content = ok.content as Record<string, Json> | undefined;
        assert.ok(content && Object.keys(content).length > 0, `${method} ${path}: 200 content`);
        for (const [type, media] of Object.entries(content)) {
          assert.ok(media.schema, `${method} ${path}: 200 ${type} has a schema`);
        }
      }
    }
    const publicOps = [paths["/healthz"]!.get!, paths["/openapi.json"]!.get!];
    for (const op of publicOps) assert.deepEqual(op.security, []);
  });
});

Deno.test("real answers match the documented 200 schemas", async () => {
  await withHarness(async (h) => {
    const check = async (schema: z.ZodType, response: Response) => {
      const text = await response.text();
      assert.equal(response.status, 200, text);
      const parsed = schema.safeParse(JSON.parse(text));
      assert.ok(parsed.success, `${response.url}: ${parsed.error?.message}\n${text}`);
    };
    const auth = { authorization: `Bearer ${h.key}` };
    await check(HealthSchema, await fetch(`${h.url}/healthz`));
    await check(ModelListSchema, await fetch(`${h.url}/v1/models`, { headers: auth }));
    await check(
      ModelEntrySchema,
      await fetch(`${h.url}/v1/models/mistral%2Fmistral-large-2411`, { headers: auth }),
    );
    const messages = [{ role: "user", content: "What is the weather? Use the tool." }];
    const tools = [{
      type: "function",
      function: { name: "get_weather", parameters: { type: "object", properties: {} } },
    }];
    await check(
      ChatCompletionSchema,
      await h.post("/v1/chat/completions", { model: "mistral/mistral-large-2411", messages }),
    );
    await check(
      ChatCompletionSchema,
      await h.post("/v1/chat/completions", {
        model: "mistral/mistral-large-2411",
        messages,
        tools,
      }),
    );
    await check(
      ResponseObjectSchema,
      await h.post("/v1/responses", {
        model: "mistral/mistral-large-2411",
        input: "Use the tool",
        tools: [{ type: "function", name: "get_weather", parameters: { type: "object" } }],
      }),
    );
    await check(
      EmbeddingsListSchema,
      await h.post("/v1/embeddings", { model: "mistral/mistral-embed", input: "hello" }),
    );
  });
});
