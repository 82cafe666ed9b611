import assert from "node:assert/strict";
import { z } from "zod";
import {
  EmbeddingsRequestSchema,
  parseEmbeddingsRequest,
} from "../../../src/api_formats/embeddings/request_schema.ts";
import { estimateEmbeddingTokens } from "../../../src/api_formats/embeddings/estimate_embedding_tokens.ts";
import { GatewayError } from "../../../src/errors.ts";

function fails(code: string, param?: string) {
  return (error: unknown) => {
    assert.ok(error instanceof GatewayError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, code);
    assert.equal(error.param, param);
    return true;
  };
}

Deno.test("parseEmbeddingsRequest — forwards the body minus model, unknown fields included", () => {
  const parsed = parseEmbeddingsRequest({
    model: "mistral/mistral-embed",
    input: ["a", "b"],
    encoding_format: "base64",
    dimensions: 256,
    user: "u-1",
    output_dtype: "int8",
    stream: false,
  });
  assert.equal(parsed.model, "mistral/mistral-embed");
  assert.equal(parsed.user, "u-1");
  assert.deepEqual(parsed.upstream, {
    model: "mistral/mistral-embed",
    body: {
      input: ["a", "b"],
      encoding_format: "base64",
      dimensions: 256,
      user: "u-1",
      output_dtype: "int8",
    },
  });
});

Deno.test("parseEmbeddingsRequest — accepts every input form", () => {
  for (const input of ["text", ["a", "b"], [1, 2, 3], [[1, 2], [3]]]) {
    assert.deepEqual(parseEmbeddingsRequest({ model: "m", input }).input, input);
  }
});

Deno.test("parseEmbeddingsRequest — refuses stream, empty input and bad fields", () => {
  assert.throws(
    () => parseEmbeddingsRequest({ model: "m", input: "x", stream: true }),
    fails("stream", "stream"),
  );
  for (const input of ["", [], [""], [[]], [1.5], [["a"]], null, 5]) {
    assert.throws(
      () => parseEmbeddingsRequest({ model: "m", input }),
      fails("invalid_request", "input"),
    );
  }
  assert.throws(() => parseEmbeddingsRequest({ input: "x" }), (error) => {
    fails("invalid_request", "model")(error);
    assert.equal((error as Error).message, "Missing required field 'model'.");
    return true;
  });
  assert.throws(
    () => parseEmbeddingsRequest({ model: "m", input: "x", encoding_format: "int8" }),
    fails("invalid_request", "encoding_format"),
  );
  assert.throws(
    () => parseEmbeddingsRequest({ model: "m", input: "x", dimensions: 1.5 }),
    fails("invalid_request", "dimensions"),
  );
  assert.throws(() => parseEmbeddingsRequest("x"), fails("invalid_request", undefined));
});

Deno.test("EmbeddingsRequestSchema — converts to JSON Schema for /openapi.json", () => {
  const schema = z.toJSONSchema(EmbeddingsRequestSchema, { io: "input" }) as {
    required?: string[];
    properties?: Record<string, unknown>;
    additionalProperties?: unknown;
  };
  assert.deepEqual(schema.required?.sort(), ["input", "model"]);
  assert.ok(schema.properties?.encoding_format);
  assert.notEqual(schema.additionalProperties, false);
});

Deno.test("estimateEmbeddingTokens — tokenizes text and counts token arrays", async () => {
  const one = await estimateEmbeddingTokens("The quick brown fox jumps over the lazy dog.");
  assert.ok(one >= 9 && one <= 12, `got ${one}`);
  assert.equal(
    await estimateEmbeddingTokens(["hello", "hello"]),
    2 * await estimateEmbeddingTokens("hello"),
  );
  assert.equal(await estimateEmbeddingTokens([1, 2, 3]), 3);
  assert.equal(await estimateEmbeddingTokens([[1, 2], [3, 4, 5]]), 5);
});
