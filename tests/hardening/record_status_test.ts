/**
 * A request's metadata carries the status the client got. An
 * audit of every path that writes a record after a provider was reached — success, passthrough
 * 4xx, provider 5xx and 429, fallback, failures before and after a stream's first byte, the
 * Responses API, the non-chat endpoints, a client that leaves — each compared through the
 * real HTTP stack with the record written for it. (The one mismatch the issue found, deep JSON
 * answered 500 after a record of 200, is refused before any call since item 5's first half.)
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { chatBody } from "../helpers/api.ts";
import { embeddingModel, speechModel } from "../helpers/non_chat.ts";
import type { RequestRecord } from "../../src/state/records.ts";

async function recordOf(h: Harness, id: string): Promise<RequestRecord> {
  for (let i = 0; i < 200; i++) {
    await h.flushed();
    const found = (await h.store.listRequests(h.org, 1000)).find((r) => r.id === id);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no record for ${id}`);
}

/** The status the client saw (the stream read to its end or its break) and its request id. */
async function call(h: Harness, path: string, body: unknown) {
  const res = await h.post(path, body);
  await res.arrayBuffer().catch(() => {}); // a stream broken after its first byte
  const id = res.headers.get("x-sovra-request-id");
  assert.ok(id, `${path}: a request id`);
  return { status: res.status, id };
}

Deno.test("metadata status — every recorded request carries the status its client got", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/ok", "sim-chat"),
      chatModel("acme/bad-request", "sim-chat+fail-400"),
      chatModel("acme/down", "sim-chat+fail-500"),
      chatModel("acme/throttled", "sim-chat+fail-429"),
      chatModel("acme/fallback", ["sim-chat+fail-503", "sim-chat"]),
      chatModel("acme/drops", "sim-chat+drop-after-3"),
      chatModel("acme/slow", "sim-chat+slow-2000"),
      embeddingModel("acme/embed-down", "sim-embed+fail-500"),
      speechModel("acme/tts-down", "sim-tts+fail-500"),
    ],
  });
  const cases: Array<[string, string, unknown, number]> = [];
  for (const stream of [false, true]) {
    for (
      const [model, status] of [
        ["acme/ok", 200],
        ["acme/bad-request", 400],
        ["acme/down", 502],
        ["acme/throttled", 429],
        ["acme/fallback", 200],
        ["acme/drops", stream ? 200 : 502],
      ] as const
    ) {
      cases.push([
        `chat ${model}${stream ? " stream" : ""}`,
        "/v1/chat/completions",
        chatBody(model, "Hello there", { stream }),
        status,
      ]);
      cases.push([
        `responses ${model}${stream ? " stream" : ""}`,
        "/v1/responses",
        { model, input: "Hello there", stream },
        status,
      ]);
    }
  }
  cases.push([
    "embeddings down",
    "/v1/embeddings",
    { model: "acme/embed-down", input: "x" },
    502,
  ]);
  cases.push([
    "speech down",
    "/v1/audio/speech",
    { model: "acme/tts-down", input: "Hallo", voice: "alloy" },
    502,
  ]);
  for (const [name, path, body, expected] of cases) {
    const { status, id } = await call(h, path, body);
    // A drop before the first byte is 502; a drop after it keeps the 200 already sent.
    assert.equal(status, expected, `${name}: the client's status`);
    assert.equal((await recordOf(h, id)).status, status, `${name}: the record's status`);
  }

  // A client that leaves while the provider works: the gateway answers 499 (nobody reads
  // it), and the record (a provider was reached) says 499 too.
  const abort = new AbortController();
  const pending = fetch(`${h.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
    body: JSON.stringify(chatBody("acme/slow", "Hello")),
    signal: abort.signal,
  });
  const before = (await h.store.listRequests(h.org, 1000)).length;
  for (let i = 0; i < 500 && h.gateway.deps.gate.holds.open === 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  abort.abort();
  await pending.catch(() => {});
  let rows: RequestRecord[] = [];
  for (let i = 0; i < 200 && rows.length <= before; i++) {
    await h.flushed();
    rows = await h.store.listRequests(h.org, 1000);
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(rows.length, before + 1);
  assert.equal(rows[0]!.status, 499);
});
