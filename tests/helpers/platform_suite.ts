/**
 * Shared helpers of the end-to-end rebuilding-route and Responses suites: a gateway harness
 * in front of both platform simulators that always closes, raw SSE reading that tells a clean
 * end from a dropped connection, the spec's error shape and metadata rows. Written against the
 * spec (summarised in docs/api.md), not the gateway's code.
 */
import assert from "node:assert/strict";
import { type Harness, startHarness, type TestModel } from "./harness.ts";
import { type Platforms, startPlatforms } from "./platforms.ts";
import type { RequestRecord } from "../../src/state/records.ts";
import { isRecord, type Json } from "./json.ts";

export { isRecord, type Json };

/** A gateway whose catalog holds `models`, in front of the openai, Bedrock and Vertex simulators. */
export async function withPlatforms(
  models: TestModel[],
  fn: (h: Harness, p: Platforms) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  await using p = await startPlatforms();
  await using h = await startHarness({ models, providers: p.providers, env: { ...p.env, ...env } });
  await fn(h, p);
}

const rowMarks = new WeakMap<Harness, number>();

/**
 * Forgets what every simulator recorded (between steps sharing one harness) and remembers how
 * many metadata rows exist, so that `lastRow` waits for the row of this step.
 */
export async function resetAll(h: Harness, p: Platforms): Promise<void> {
  h.sim.reset();
  p.reset();
  rowMarks.set(h, (await requestRows(h, 100_000)).length);
}

/** Calls that reached any upstream (openai chat, Bedrock, Vertex; token grants excluded). */
export function upstreamCalls(h: Harness, p: Platforms): number {
  const openai = h.sim.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
  return openai + p.bedrock.requests.length + p.vertex.requests.length;
}

export const user = (content: string) => ({ role: "user" as const, content });

export const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    },
  },
};

/** The same tool in the flat Responses shape. */
export const WEATHER_TOOL_FLAT = {
  type: "function" as const,
  name: "get_weather",
  description: "Current weather for a city",
  parameters: WEATHER_TOOL.function.parameters,
  strict: false,
};

/** The newest metadata rows of the harness org (newest first), after every write is durable. */
export async function requestRows(h: Harness, n = 20): Promise<RequestRecord[]> {
  await h.flushed();
  return await h.store.listRequests(h.org, n);
}

/** The newest metadata row, once the request since the last `resetAll` has written one. */
export async function lastRow(h: Harness): Promise<RequestRecord> {
  const mark = rowMarks.get(h) ?? 0;
  const rows = await waitForRows(h, mark + 1);
  const row = rows[0];
  assert.ok(row && rows.length > mark, "a metadata row was written");
  return row;
}

/** Waits (short polls, no fixed sleep) until the org has at least `count` metadata rows. */
export async function waitForRows(h: Harness, count: number, limitMs = 4_000) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const rows = await requestRows(h, 100_000);
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The spec's Error object: `{ error: { message, type, code } }`, all strings. */
export function assertErrorShape(body: unknown, code?: string): Json {
  assert.ok(isRecord(body), "error body must be an object");
  const error = body.error;
  assert.ok(isRecord(error), "error body must carry an `error` object");
  assert.equal(typeof error.message, "string");
  assert.equal(typeof error.type, "string");
  assert.equal(typeof error.code, "string");
  if (code !== undefined) assert.equal(error.code, code, `error.code (${error.message})`);
  return error;
}

/** Asserts a 400 refusal naming `field` in `error.code` and `error.param`. */
export async function assertRefused(res: Response, field: string): Promise<void> {
  const body: unknown = await res.json();
  assert.equal(res.status, 400, JSON.stringify(body));
  const error = assertErrorShape(body, field);
  assert.equal(error.param, field, "error.param names the field");
}

export { type BodyRead, readToEnd, sseData } from "./sse.ts";
import { sseData } from "./sse.ts";

/** The JSON chunks of a chat stream (without `[DONE]`). */
export function sseChunks(text: string): Json[] {
  return sseData(text).filter((d) => d !== "[DONE]").map((d) => {
    const chunk: unknown = JSON.parse(d);
    assert.ok(isRecord(chunk));
    return chunk;
  });
}
