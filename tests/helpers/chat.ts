/**
 * Shared helpers of the chat-completions suite (tests/api_formats/chat/, also used elsewhere): a
 * harness wrapper that always closes, raw SSE reading that tells a clean end from a dropped
 * connection, metadata polling and accessors for what the simulator recorded. Written against the
 * spec (summarised in docs/api.md), not the gateway's code.
 */
import assert from "node:assert/strict";
import { type Harness, type HarnessOptions, SIM_KEY, startHarness } from "./harness.ts";
import type { RequestRecord } from "../../src/state/records.ts";
import { isRecord, type Json } from "./json.ts";

export { isRecord, type Json };

export { SIM_KEY };

export async function withHarness(
  options: HarnessOptions,
  fn: (h: Harness) => Promise<void>,
): Promise<void> {
  await using h = await startHarness(options);
  await fn(h);
}

export const user = (content: string) => ({ role: "user" as const, content });

/** The JSON bodies the simulator received on `/v1/chat/completions`, in order. */
export function upstreamChatBodies(h: Harness): Json[] {
  return h.sim.requests
    .filter((r) => r.path === "/v1/chat/completions")
    .map((r) => (isRecord(r.body) ? r.body : {}));
}

/** The upstream model names the simulator was asked for, in order. */
export function upstreamModels(h: Harness): string[] {
  return upstreamChatBodies(h).map((b) => String(b.model));
}

/** The newest metadata rows of the harness org, after every queued write is durable. */
export async function requestRows(h: Harness, n = 10): Promise<RequestRecord[]> {
  await h.flushed();
  return await h.store.listRequests(h.org, n);
}

/**
 * Waits until the org has `count` metadata rows (rows of streams the client left are written
 * when the gateway notices; no fixed sleep, short polls up to `limitMs`).
 */
export async function waitForRows(
  h: Harness,
  count = 1,
  limitMs = 4_000,
): Promise<RequestRecord[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const rows = await requestRows(h, Math.max(count, 10));
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function onlyRow(rows: RequestRecord[]): RequestRecord {
  assert.equal(rows.length, 1, `expected one metadata row, got ${rows.length}`);
  const row = rows[0];
  assert.ok(row);
  return row;
}

/** Integer check with a readable message. */
export function assertInt(value: unknown, label: string): asserts value is number {
  assert.ok(Number.isInteger(value), `${label} must be an integer, got ${JSON.stringify(value)}`);
}

/** The spec's Error object: `{ error: { message, type, code } }`, all strings. */
export function assertErrorShape(body: unknown, code?: string): Json {
  assert.ok(isRecord(body), "error body must be an object");
  const error = body.error;
  assert.ok(isRecord(error), "error body must carry an `error` object");
  assert.equal(typeof error.message, "string");
  assert.equal(typeof error.type, "string");
  assert.equal(typeof error.code, "string");
  if (code !== undefined) assert.equal(error.code, code);
  return error;
}

export { type BodyRead as SseRead, readToEnd, sseData } from "./sse.ts";
import { sseData } from "./sse.ts";

/** The JSON chunks of a stream (without the `[DONE]` terminator). */
export function sseChunks(text: string): Json[] {
  return sseData(text).filter((d) => d !== "[DONE]").map((d) => {
    const chunk: unknown = JSON.parse(d);
    assert.ok(isRecord(chunk), "every chunk must be a JSON object");
    return chunk;
  });
}

/** `choices[0].delta` of a chunk, or undefined (e.g. the usage chunk has no choices). */
export function deltaOf(chunk: Json): Json | undefined {
  const choices = chunk.choices;
  if (!Array.isArray(choices)) return undefined;
  const first: unknown = choices[0];
  if (!isRecord(first) || !isRecord(first.delta)) return undefined;
  return first.delta;
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

/** A provider entry whose connection is refused. */
export function deadProvider(): Record<string, unknown> {
  return { dialect: "openai", base_url: `http://127.0.0.1:${closedPort()}/v1` };
}

/** Posts straight to the simulator (bypassing the gateway) to learn what the upstream says. */
export async function askSimulator(h: Harness, body: Json): Promise<Json> {
  const res = await fetch(`${h.sim.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${SIM_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json: unknown = await res.json();
  assert.ok(isRecord(json));
  return json;
}
