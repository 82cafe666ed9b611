/**
 * Path parameters never cause a 500, every answer carries the
 * request id (also as `x-request-id`, which the SDKs read), authenticated answers carry the
 * rate-limit headers the ecosystem reads, and errors say what to do.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { platformModel, type Platforms, routeOf, startPlatforms } from "../helpers/platforms.ts";
import { expectError } from "../helpers/api.ts";

async function withHarness(
  fn: (h: Harness, p: Platforms) => Promise<void>,
  options: { rpm?: number; credits?: number } = {},
): Promise<void> {
  await using p = await startPlatforms();
  await using h = await startHarness({
    models: [
      chatModel("mistral/mistral-large-2411", "sim-chat"),
      {
        id: "mistral/mistral-embed",
        kind: "embedding",
        routes: [{ provider: "sim-a", upstream_model: "sim-embed" }],
        pricing: { prompt_micro_eur_per_million: 100_000 },
      },
      platformModel("e2e/bedrock", [routeOf("bedrock-claude")]),
    ],
    providers: p.providers,
    env: p.env,
    ...options,
  });
  await fn(h, p);
}

function requestIdOf(response: Response): string {
  const id = response.headers.get("x-sovra-request-id");
  assert.ok(id, `no x-sovra-request-id on ${response.status}`);
  assert.equal(response.headers.get("x-request-id"), id);
  return id;
}

Deno.test("GET /v1/models/{id}: a percent sign or any fuzzed id is never a 500", async () => {
  await withHarness(async (h) => {
    const auth = { authorization: `Bearer ${h.key}` };
    const fixed = [
      "%25",
      "%",
      "%E0%A4%A",
      "%00",
      "a%2Fb",
      "..%2F..",
      "%C0%AF",
      "%ZZ",
      "x?y",
      "%25%25",
    ];
    // A deterministic pseudo-random fuzz over raw path bytes, percent escapes and slashes.
    let seed = 9;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = [
      "%",
      "%2",
      "%25",
      "%F0%9F",
      "/",
      "a",
      "Z",
      "-",
      ".",
      "~",
      "%C3",
      "%A9",
      "!",
      "'",
      "(",
      "*",
      ":",
      "@",
      "%0A",
      "%7F",
    ];
    const fuzzed = Array.from(
      { length: 150 },
      () =>
        Array.from(
          { length: 1 + Math.floor(rand() * 8) },
          () => alphabet[Math.floor(rand() * alphabet.length)],
        ).join(""),
    );
    for (const id of [...fixed, ...fuzzed]) {
      const response = await fetch(`${h.url}/v1/models/${id}`, { headers: auth });
      const text = await response.text();
      assert.ok(response.status < 500, `GET /v1/models/${id} → ${response.status}: ${text}`);
      requestIdOf(response);
    }
    const percent = await fetch(`${h.url}/v1/models/%25`, { headers: auth });
    const error = await expectError(percent, 404, "model_not_found");
    assert.match(error.message, /'%'/);
    // An escaped slash still finds the model.
    const escaped = await fetch(`${h.url}/v1/models/mistral%2Fmistral-large-2411`, {
      headers: auth,
    });
    assert.equal(escaped.status, 200);
    assert.equal((await escaped.json()).id, "mistral/mistral-large-2411");
  });
});

Deno.test("every answer carries the request id as x-sovra-request-id and x-request-id", async () => {
  await withHarness(async (h) => {
    const ids = new Set<string>();
    const check = (r: Response) => {
      const id = requestIdOf(r);
      assert.ok(!ids.has(id), "request ids are unique");
      ids.add(id);
    };
    const served = await h.post("/v1/chat/completions", {
      model: "mistral/mistral-large-2411",
      messages: [{ role: "user", content: "hi" }],
    });
    check(served);
    await served.body?.cancel();
    for (
      const [response, status] of [
        [await h.post("/v1/chat/completions", "{"), 400],
        [await fetch(`${h.url}/v1/models`), 401],
        [
          await h.post("/v1/chat/completions", {
            model: "x/y",
            messages: [{ role: "user", content: "hi" }],
          }),
          404,
        ],
        [await fetch(`${h.url}/nowhere`), 404],
        [
          await h.post("/v1/chat/completions", {
            model: "mistral/mistral-large-2411+fail-503",
            messages: [{ role: "user", content: "hi" }],
          }),
          404,
        ],
        [
          await h.post("/v1/chat/completions", {
            model: "mistral/mistral-large-2411",
            messages: [{ role: "user", content: "hi" }],
            tools: "nope",
          }),
          400,
        ],
      ] as const
    ) {
      assert.equal(response.status, status);
      check(response);
      await response.body?.cancel();
    }
    // The openai SDK reads x-request-id into `_request_id`, also on errors.
    const completion = await h.client.chat.completions.create({
      model: "mistral/mistral-large-2411",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.match(completion._request_id ?? "", /^req_/);
    const failed = await h.client.models.retrieve("no/such-model").catch((e) => e);
    assert.ok(failed instanceof OpenAI.NotFoundError);
    assert.match(failed.requestID ?? "", /^req_/);
  });
});

Deno.test("402 and 429 carry the request id; 429 keeps Retry-After", async () => {
  await withHarness(async (h) => {
    const body = {
      model: "mistral/mistral-large-2411",
      messages: [{ role: "user", content: "hi" }],
    };
    const first = await h.post("/v1/chat/completions", body);
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const limited = await h.post("/v1/chat/completions", body);
    assert.equal(limited.status, 429);
    requestIdOf(limited);
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    assert.equal(limited.headers.get("x-ratelimit-limit-requests"), "1");
    assert.equal(limited.headers.get("x-ratelimit-remaining-requests"), "0");
    assert.match(limited.headers.get("x-ratelimit-reset-requests") ?? "", /^(\d+m)?\d+s$/);
    await limited.body?.cancel();
  }, { rpm: 1 });
  await withHarness(async (h) => {
    await h.admin(["credits", "topup"], { org: h.org, "micro-eur": "0" }).catch(() => {});
    const response = await h.post("/v1/chat/completions", {
      model: "mistral/mistral-large-2411",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(response.status, 402);
    requestIdOf(response);
    assert.equal(response.headers.get("x-ratelimit-limit-requests"), "600");
    await response.body?.cancel();
  }, { credits: 0, rpm: 600 });
});

Deno.test("authenticated answers carry x-ratelimit-*-requests that count down", async () => {
  await withHarness(async (h) => {
    const remaining: number[] = [];
    for (const path of ["/v1/models", "/v1/models", "/v1/models/mistral%2Fmistral-large-2411"]) {
      const r = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${h.key}` } });
      assert.equal(r.status, 200);
      await r.body?.cancel();
      assert.equal(r.headers.get("x-ratelimit-limit-requests"), "5");
      assert.match(r.headers.get("x-ratelimit-reset-requests") ?? "", /^(\d+m)?\d+s$/);
      remaining.push(Number(r.headers.get("x-ratelimit-remaining-requests")));
    }
    assert.deepEqual(remaining.slice(0, 2), [4, 3]);
    const error = await h.post("/v1/chat/completions", {
      model: "x/y",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(error.status, 404);
    assert.equal(error.headers.get("x-ratelimit-limit-requests"), "5");
    await error.body?.cancel();
    const unauthenticated = await fetch(`${h.url}/v1/models`);
    assert.equal(unauthenticated.headers.get("x-ratelimit-limit-requests"), null);
    await unauthenticated.body?.cancel();
  }, { rpm: 5 });
});

Deno.test("a wrong method on a known path is 405 with Allow", async () => {
  await withHarness(async (h) => {
    for (
      const [method, path, allow] of [
        ["GET", "/v1/chat/completions", "POST"],
        ["PUT", "/v1/responses", "POST"],
        ["POST", "/v1/models", "GET"],
        ["DELETE", "/v1/models/mistral/mistral-large-2411", "GET"],
        ["POST", "/healthz", "GET"],
      ] as const
    ) {
      const response = await fetch(`${h.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${h.key}` },
      });
      const error = await expectError(response, 405, "method_not_allowed");
      assert.equal(response.headers.get("allow"), allow);
      assert.match(error.message, new RegExp(`${allow} ${path.replace(/\//g, "\\/")}`));
      requestIdOf(response);
    }
    await expectError(await fetch(`${h.url}/v1/nothing`), 404, "not_found");
  });
});

Deno.test("401 says whether the Authorization header is missing or the key is bad", async () => {
  await withHarness(async (h) => {
    const missing = await expectError(await fetch(`${h.url}/v1/models`), 401, "missing_api_key");
    assert.match(missing.message, /Missing 'Authorization' header/);
    assert.match(missing.message, /Bearer/);
    const wrongScheme = await expectError(
      await fetch(`${h.url}/v1/models`, { headers: { authorization: h.key } }),
      401,
    );
    assert.match(wrongScheme.message, /Bearer/);
    const bad = await expectError(
      await fetch(`${h.url}/v1/models`, { headers: { authorization: "Bearer sk-ex-nope" } }),
      401,
      "invalid_api_key",
    );
    assert.match(bad.message, /invalid or revoked/i);
  });
});

Deno.test("an unknown model that is a catalog id's second half suggests the full id", async () => {
  await withHarness(async (h) => {
    const error = await expectError(
      await h.post("/v1/chat/completions", {
        model: "mistral-large-2411",
        messages: [{ role: "user", content: "hi" }],
      }),
      404,
      "model_not_found",
    );
    assert.match(error.message, /'mistral\/mistral-large-2411'/);
    assert.match(error.message, /GET \/v1\/models/);
    const plain = await expectError(
      await h.post("/v1/chat/completions", {
        model: "acme/nothing",
        messages: [{ role: "user", content: "hi" }],
      }),
      404,
    );
    assert.match(plain.message, /GET \/v1\/models/);
    assert.doesNotMatch(plain.message, /Did you mean/);
  });
});

Deno.test("embeddings: a missing input names the field; 'an embedding model'", async () => {
  await withHarness(async (h) => {
    const missing = await expectError(
      await h.post("/v1/embeddings", { model: "mistral/mistral-embed" }),
      400,
      "invalid_request",
    );
    assert.match(missing.message, /'input'/);
    const kind = await expectError(
      await h.post("/v1/embeddings", { model: "mistral/mistral-large-2411", input: "x" }),
      400,
      "model_kind_mismatch",
    );
    assert.match(kind.message, /needs an embedding model/);
    assert.match(kind.message, /is a chat model/);
  });
});

Deno.test("Bedrock: a conversation of only a system message says what is missing", async () => {
  await withHarness(async (h) => {
    const error = await expectError(
      await h.post("/v1/chat/completions", {
        model: "e2e/bedrock",
        messages: [{ role: "system", content: "You are terse." }],
      }),
      400,
    );
    assert.match(error.message, /user message/);
    assert.equal(error.code, "messages");
  });
});

Deno.test("a body field name that is no valid header text is named percent-encoded, not a 500", async () => {
  await withHarness(async (h) => {
    for (const path of ["/v1/chat/completions", "/v1/responses"]) {
      const response = await h.post(path, {
        model: "mistral/mistral-large-2411",
        ...(path.endsWith("responses") ? { input: "hi" } : {
          messages: [{ role: "user", content: "hi" }],
        }),
        "clé": 1,
        "a,b": 2,
        "\u0000x": 3,
        "\ud800": 4,
      });
      assert.equal(response.status, 200, await response.clone().text());
      await response.body?.cancel();
      const names = response.headers.get("x-sovra-dropped-params")!.split(",");
      assert.deepEqual(names.sort(), ["%00x", "%EF%BF%BD", "a%2Cb", "cl%C3%A9"]);
    }
  });
});
