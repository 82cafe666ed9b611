/**
 * Spec "Common rules", "Errors" and "Limits" for JSON requests: 2 MiB body limit (declared
 * and chunked), malformed body, missing model, content type → 400 `invalid_request`;
 * unknown or disabled model → 404 `model_not_found`; a model of another kind is rejected.
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { chatBody, expectError } from "../helpers/api.ts";

const LIMIT = 2 * 1024 * 1024;
const encoder = new TextEncoder();

/** A valid chat JSON body of exactly `size` bytes (the padding is the message content). */
function bodyOfSize(size: number): Uint8Array<ArrayBuffer> {
  const empty = JSON.stringify(chatBody("acme/chat", ""));
  const pad = size - encoder.encode(empty).length;
  const padded = JSON.stringify(chatBody("acme/chat", "a".repeat(pad)));
  const bytes = encoder.encode(padded);
  assert.equal(bytes.length, size);
  return bytes;
}

/** A body sent with chunked transfer (no content-length), in 64 KiB pieces. */
function chunked(bytes: Uint8Array<ArrayBuffer>): ReadableStream<Uint8Array<ArrayBuffer>> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 65_536));
      offset += 65_536;
    },
  });
}

function postRaw(h: Harness, body: BodyInit, contentType = "application/json") {
  return fetch(`${h.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.key}`, "content-type": contentType },
    body,
  });
}

function harness(): Promise<Harness> {
  return startHarness({
    models: [
      chatModel("acme/chat", "sim-chat"),
      chatModel("acme/old-chat", "sim-chat", { state: "disabled" }),
      {
        id: "acme/embed",
        kind: "embedding",
        pricing: { prompt_micro_eur_per_million: 100_000 },
        routes: [{ provider: "sim-a", upstream_model: "sim-embed" }],
      },
    ],
  });
}

Deno.test("body limit — exactly 2 MiB is accepted, 2 MiB + 1 byte is 400 invalid_request", async () => {
  const h = await harness();
  try {
    const atLimit = await postRaw(h, bodyOfSize(LIMIT));
    const text = await atLimit.text();
    assert.equal(atLimit.status, 200, `a body of exactly 2 MiB was refused: ${text}`);

    const upstreamCalls = h.sim.requests.length;
    await expectError(await postRaw(h, bodyOfSize(LIMIT + 1)), 400, "invalid_request");
    assert.equal(h.sim.requests.length, upstreamCalls);
  } finally {
    await h.close();
  }
});

Deno.test("body limit — chunked transfer: 2 MiB passes, 2 MiB + 1 byte is 400 invalid_request", async () => {
  const h = await harness();
  try {
    const atLimit = await postRaw(h, chunked(bodyOfSize(LIMIT)));
    const text = await atLimit.text();
    assert.equal(atLimit.status, 200, `a chunked body of exactly 2 MiB was refused: ${text}`);

    const over = await postRaw(h, chunked(bodyOfSize(LIMIT + 1)));
    await expectError(over, 400, "invalid_request");
  } finally {
    await h.close();
  }
});

Deno.test("chat request — malformed JSON, non-object, missing model, wrong content type → 400 invalid_request", async () => {
  const h = await harness();
  try {
    await expectError(
      await postRaw(h, '{"model": "acme/chat", "messages": ['),
      400,
      "invalid_request",
    );
    await expectError(await postRaw(h, "[1, 2, 3]"), 400, "invalid_request");
    await expectError(await postRaw(h, ""), 400, "invalid_request");
    await expectError(
      await postRaw(h, JSON.stringify({ messages: [{ role: "user", content: "hi" }] })),
      400,
      "invalid_request",
    );
    await expectError(
      await postRaw(h, JSON.stringify(chatBody("acme/chat")), "text/plain"),
      400,
      "invalid_request",
    );
    await expectError(
      await postRaw(h, JSON.stringify({ model: 42, messages: [] })),
      400,
      "invalid_request",
    );
    await expectError(
      await postRaw(h, JSON.stringify({ model: "acme/chat" })),
      400,
      "invalid_request",
    );
    assert.equal(h.sim.requests.length, 0, "an invalid request reached the upstream");

    // A charset parameter is still application/json.
    const withCharset = await postRaw(
      h,
      JSON.stringify(chatBody("acme/chat")),
      "application/json; charset=utf-8",
    );
    assert.equal(withCharset.status, 200);
    await withCharset.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("chat request — unknown or disabled model → 404 model_not_found; embedding model → 400 model_kind_mismatch", async () => {
  const h = await harness();
  try {
    await expectError(
      await h.post("/v1/chat/completions", chatBody("acme/does-not-exist")),
      404,
      "model_not_found",
    );
    await expectError(
      await h.post("/v1/chat/completions", chatBody("acme/old-chat")),
      404,
      "model_not_found",
    );
    // Through the official SDK too.
    await assert.rejects(
      () =>
        h.client.chat.completions.create({
          model: "acme/old-chat",
          messages: [{ role: "user", content: "hi" }],
        }),
      (error: { status?: number }) => error.status === 404,
    );
    await expectError(
      await h.post("/v1/chat/completions", chatBody("acme/embed")),
      400,
      "model_kind_mismatch",
    );
    assert.equal(h.sim.requests.length, 0, "a refused request reached the upstream");
    await h.flushed();
    const org = await h.admin(["org", "show"], { org: h.org });
    assert.equal(org.balance_micro_eur, 1_000_000_000, "a refused request was billed");
  } finally {
    await h.close();
  }
});

Deno.test("JSON body — a UTF-8 byte order mark is dropped and invalid UTF-8 replaced, declared or chunked; empty and malformed bodies say so", async () => {
  const h = await harness();
  try {
    const json = encoder.encode(JSON.stringify(chatBody("acme/chat", "hi")));
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...json]);
    for (const body of [withBom, chunked(withBom)]) {
      const served = await postRaw(h, body);
      assert.equal(served.status, 200, await served.clone().text());
      await served.body?.cancel();
    }
    // "h\xffi": the invalid byte reaches the upstream as U+FFFD.
    const invalid = encoder.encode(JSON.stringify(chatBody("acme/chat", "h_i")));
    invalid[invalid.indexOf(0x5f)] = 0xff;
    for (const body of [invalid, chunked(invalid)]) {
      const served = await postRaw(h, body);
      assert.equal(served.status, 200);
      await served.body?.cancel();
    }
    const sent = h.sim.requests.slice(-2).map((r) =>
      (r.body as { messages: { content: string }[] }).messages.at(-1)!.content
    );
    assert.deepEqual(sent, ["h\ufffdi", "h\ufffdi"]);
    for (const body of ["", chunked(new Uint8Array(0))]) {
      const error = await expectError(await postRaw(h, body), 400, "invalid_request");
      assert.match(error.message, /body is empty/);
    }
    for (const body of ["{", chunked(encoder.encode("{"))]) {
      const error = await expectError(await postRaw(h, body), 400, "invalid_request");
      assert.match(error.message, /not valid JSON/);
    }
  } finally {
    await h.close();
  }
});
