import assert from "node:assert/strict";
import { openaiEmbeddings } from "../../../src/providers/openai/embeddings.ts";
import { parseEmbeddingsRequest } from "../../../src/api_formats/embeddings/request_schema.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";
import { openaiCall, recordingUpstream, TEST_ENV } from "../../helpers/audio.ts";

const ANSWER = {
  object: "list",
  data: [{ object: "embedding", index: 0, embedding: [0.25, -0.5] }],
  model: "mistral-embed-2312",
  usage: { prompt_tokens: 7, total_tokens: 7 },
};

Deno.test("openaiEmbeddings — forwards the body unchanged with the upstream model", async () => {
  await using upstream = recordingUpstream(() => Response.json(ANSWER));
  const { upstream: request } = parseEmbeddingsRequest({
    model: "mistral/mistral-embed",
    input: ["Grüße", "world"],
    encoding_format: "float",
    dimensions: 2,
    user: "u-9",
    output_dtype: "float",
  });
  const call = openaiCall(upstream.baseUrl, "mistral-embed-2312");
  const result = await openaiEmbeddings(request, call, { env: TEST_ENV });
  assert.deepEqual(result.body, ANSWER);
  assert.deepEqual(result.usage, {
    promptTokens: 7,
    totalTokens: 7,
    completionTokens: undefined,
  });

  const [received] = upstream.received;
  assert.equal(received?.method, "POST");
  assert.equal(received?.path, "/v1/embeddings");
  assert.equal(received?.headers.get("authorization"), "Bearer sk-upstream-test");
  assert.equal(received?.headers.get("content-type"), "application/json");
  assert.deepEqual(JSON.parse(new TextDecoder().decode(received?.body)), {
    model: "mistral-embed-2312",
    input: ["Grüße", "world"],
    encoding_format: "float",
    dimensions: 2,
    user: "u-9",
    output_dtype: "float",
  });
});

Deno.test("openaiEmbeddings — missing or odd usage is undefined, never 0", async () => {
  const bodies = [
    { data: [] },
    { data: [], usage: null },
    { data: [], usage: { total_tokens: 3 } },
    { data: [], usage: { prompt_tokens: "many" } },
  ];
  let next = 0;
  await using upstream = recordingUpstream(() => Response.json(bodies[next++]));
  const call = openaiCall(upstream.baseUrl, "e5");
  for (const body of bodies) {
    const result = await openaiEmbeddings({ model: "m", body: { input: "x" } }, call, {
      env: TEST_ENV,
    });
    assert.equal(result.usage, undefined, JSON.stringify(body));
    assert.deepEqual(result.body, body);
  }
});

Deno.test("openaiEmbeddings — maps upstream failures by status and shape", async () => {
  const cases: Array<[Response, string, number | undefined]> = [
    [new Response("slow down", { status: 429 }), "rate_limited", 429],
    [new Response("oops", { status: 500 }), "unavailable", 500],
    [new Response("no", { status: 403 }), "auth", 403],
    [
      Response.json({ error: { message: "Input too long", code: "context_length" } }, {
        status: 400,
      }),
      "passthrough",
      400,
    ],
    [Response.json({ detail: "bad" }, { status: 422 }), "invalid_request", 422],
    [new Response("not json", { status: 200 }), "unavailable", undefined],
    [Response.json([1, 2]), "unavailable", undefined],
  ];
  let next = 0;
  await using upstream = recordingUpstream(() => cases[next++]![0]);
  const call = openaiCall(upstream.baseUrl, "e5");
  for (const [, kind, status] of cases) {
    await assert.rejects(
      openaiEmbeddings({ model: "m", body: { input: "x" } }, call, { env: TEST_ENV }),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamFailure, String(error));
        assert.equal(error.kind, kind);
        assert.equal(error.status, status);
        if (kind === "passthrough") {
          assert.equal(JSON.parse(error.body ?? "").error.message, "Input too long");
        }
        return true;
      },
    );
  }
});

Deno.test("openaiEmbeddings — an aborted call rejects with the abort, not a failure", async () => {
  await using upstream = recordingUpstream(() => Response.json(ANSWER));
  const controller = new AbortController();
  controller.abort(new DOMException("client gone", "AbortError"));
  const call = openaiCall(upstream.baseUrl, "e5", { signal: controller.signal });
  await assert.rejects(
    openaiEmbeddings({ model: "m", body: { input: "x" } }, call, { env: TEST_ENV }),
    (error: unknown) => !(error instanceof UpstreamFailure),
  );
});
