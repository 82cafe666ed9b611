/**
 * The first byte does not wait for the admission commit; the answer's content does (the
 * durability guarantee). A request's admission record is written before its first upstream
 * call and no answer content may reach the client before it is durable (so every answer a
 * client saw is billed after a kill -9). The status, headers and the role chunk (chat) or
 * `response.created` (Responses) carry no content: they go out as soon as the upstream started,
 * while the commit is still running. Here the store's admission write is held open (a slow
 * commit, through the store the gateway writes to) until the client has its first byte. A
 * commit that hangs is cut by the stream idle limit, and an upstream failure after the role
 * chunk is told only once the admission is durable, like content.
 */
import assert from "node:assert/strict";
import { chatModel, type Harness } from "../../helpers/harness.ts";
import { deltaOf, sseChunks, user, withHarness } from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const messages = [user("Tell me about the harbour")];
/** Liveness bound: a first byte that waits for the held commit gets it released after this. */
const LIVENESS_MS = 5_000;
/** How long the commit stays open after the first byte: longer than the upstream's 30 ms gaps. */
const HOLD_AFTER_FIRST_BYTE_MS = 300;

/** Holds every admission write of the gateway's store open until `release()`. */
function holdAdmissionWrites(h: Harness) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  let released = false;
  const store = h.store;
  const countRequest = store.countRequest.bind(store);
  store.countRequest = (keyId, minute, onSent, admission) => {
    const written = countRequest(keyId, minute, onSent, admission);
    return admission ? gate.then(() => written) : written;
  };
  return {
    get released() {
      return released;
    },
    release() {
      released = true;
      open();
    },
  };
}

/** Reads the body chunk by chunk; `onChunk` sees each decoded chunk as it arrives. */
async function readChunks(
  res: Response,
  onChunk: (text: string, index: number) => void,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let index = 0;
  for await (const bytes of res.body!) {
    const chunk = decoder.decode(bytes, { stream: true });
    text += chunk;
    onChunk(chunk, index++);
  }
  return text;
}

/**
 * Sends `send()` with the admission write held; the commit is released
 * HOLD_AFTER_FIRST_BYTE_MS after the client's first byte (or after LIVENESS_MS without one).
 * Returns whether the commit was still held at the first byte, and at the first content.
 */
async function withHeldCommit(
  h: Harness,
  send: () => Promise<Response>,
  hasContent: (chunk: string) => boolean,
) {
  const held = holdAdmissionWrites(h);
  const liveness = setTimeout(() => held.release(), LIVENESS_MS);
  let releaseLater: ReturnType<typeof setTimeout> | undefined;
  try {
    const res = await send();
    assert.equal(res.status, 200);
    let heldAtFirstByte: boolean | undefined;
    let heldAtContent: boolean | undefined;
    const text = await readChunks(res, (chunk, index) => {
      if (index === 0) {
        heldAtFirstByte = !held.released;
        releaseLater = setTimeout(() => held.release(), HOLD_AFTER_FIRST_BYTE_MS);
      }
      if (heldAtContent === undefined && hasContent(chunk)) heldAtContent = !held.released;
    });
    return { text, heldAtFirstByte, heldAtContent };
  } finally {
    clearTimeout(liveness);
    clearTimeout(releaseLater);
    held.release();
  }
}

const chatContent = (chunk: string) =>
  sseChunks(chunk).some((c) => {
    const content = deltaOf(c)?.content;
    return typeof content === "string" && content !== "";
  });

Deno.test("POST /v1/chat/completions — stream: headers and role chunk before the admission commit, content only after it", () =>
  withHarness({ models: [chatModel(MODEL, "p+slow-30+chunks-3")] }, async (h) => {
    const seen = await withHeldCommit(
      h,
      () => h.post("/v1/chat/completions", { model: MODEL, messages, stream: true }),
      chatContent,
    );
    assert.equal(seen.heldAtFirstByte, true, "the first byte did not wait for the commit");
    assert.equal(seen.heldAtContent, false, "no content before the admission is durable");
    const chunks = sseChunks(seen.text);
    assert.deepEqual(deltaOf(chunks[0]!), { role: "assistant", content: "" });
    assert.ok(seen.text.endsWith("data: [DONE]\n\n"));
    const text = chunks.map((c) => deltaOf(c)?.content ?? "").join("");
    assert.ok(typeof text === "string" && text.length > 0);
  }));

Deno.test("POST /v1/responses — stream: response.created before the admission commit, output only after it", () =>
  withHarness({ models: [chatModel(MODEL, "p+slow-30+chunks-3")] }, async (h) => {
    const seen = await withHeldCommit(
      h,
      () =>
        h.post("/v1/responses", { model: MODEL, input: "Tell me about the harbour", stream: true }),
      (chunk) => chunk.includes("response.output_text.delta"),
    );
    assert.equal(seen.heldAtFirstByte, true, "the first byte did not wait for the commit");
    assert.equal(seen.heldAtContent, false, "no output before the admission is durable");
    assert.ok(seen.text.startsWith("event: response.created\n"), seen.text.slice(0, 80));
    assert.ok(seen.text.includes("event: response.completed\n"));
  }));

Deno.test("POST /v1/chat/completions — non-stream: no body before the admission commit", () =>
  withHarness({ models: [chatModel(MODEL, "p+slow-30")] }, async (h) => {
    const held = holdAdmissionWrites(h);
    const answer = h.post("/v1/chat/completions", { model: MODEL, messages });
    // Released well after the upstream answered (30 ms): the body must still have waited.
    const releaseLater = setTimeout(() => held.release(), HOLD_AFTER_FIRST_BYTE_MS);
    try {
      const res = await answer;
      assert.equal(held.released, true, "the answer waited for the admission commit");
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.ok(String(body.choices[0].message.content).length > 0);
    } finally {
      clearTimeout(releaseLater);
      held.release();
    }
  }));

/** Reads the whole body; resolves with the text and whether the admission was still held. */
async function readWhileHeld(res: Response, held: { released: boolean }) {
  let text = "";
  try {
    text = await readChunks(res, () => {});
  } catch {
    // A cut connection (chat drops a failed stream) ends the body like its end.
  }
  return { text, heldAtEnd: !held.released };
}

Deno.test("POST /v1/chat/completions — stream: the admission wait is cut by the stream idle limit (a hung commit does not hold the stream open)", () =>
  withHarness({
    models: [chatModel(MODEL, "p+slow-30+chunks-3")],
    env: { SOVRA_STREAM_IDLE_MS: "300" },
  }, async (h) => {
    const held = holdAdmissionWrites(h);
    const liveness = setTimeout(() => held.release(), LIVENESS_MS);
    try {
      const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
      assert.equal(res.status, 200);
      const seen = await readWhileHeld(res, held);
      assert.equal(seen.heldAtEnd, true, "the stream waited for the commit past the idle limit");
      assert.ok(!chatContent(seen.text), "no content without a durable admission");
      assert.ok(!seen.text.includes("[DONE]"));
      // The store stalled, not the provider: its route health (the router reads it) is untouched.
      const route = h.gateway.deps.metrics.snapshot("sim-a/p+slow-30+chunks-3");
      assert.equal(route?.errorRate ?? 0, 0, "a stalled commit was counted against the provider");
    } finally {
      clearTimeout(liveness);
      held.release();
    }
  }));

Deno.test("POST /v1/responses — stream: an upstream cut after its role chunk fails only once the admission is durable", () =>
  withHarness({ models: [chatModel(MODEL, "p+slow-30+chunks-3+drop-after-1")] }, async (h) => {
    const seen = await withHeldCommit(
      h,
      () =>
        h.post("/v1/responses", { model: MODEL, input: "Tell me about the harbour", stream: true }),
      (chunk) => chunk.includes("response.failed"),
    );
    assert.equal(seen.heldAtFirstByte, true, "the first byte did not wait for the commit");
    assert.ok(seen.text.startsWith("event: response.created\n"), seen.text.slice(0, 80));
    assert.ok(seen.text.includes("event: response.failed\n"), seen.text);
    assert.equal(
      seen.heldAtContent,
      false,
      "the failure went out before the admission was durable",
    );
  }));
