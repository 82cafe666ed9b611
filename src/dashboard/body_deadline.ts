/**
 * The dashboard's request bodies (forms, its JSON API) must arrive within
 * `SOVRA_BODY_TIMEOUT_MS` of the request's headers and stay within 2 MiB, as the API's JSON
 * bodies do (http/body.ts): a body trickled in would otherwise hold its request open for as long
 * as the client likes. Read here once, before any route, into Hono's body cache, from which
 * `parseBody()` and `json()` then read.
 */
import type { MiddlewareHandler } from "hono";
import { JSON_BODY_LIMIT, readLimitedBytes } from "../request_body.ts";
import { invalidRequest } from "../errors.ts";

const SAFE = /^(GET|HEAD|OPTIONS)$/;

export function bodyDeadline(deadlineMs: number): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE.test(c.req.method) || !c.req.raw.body) return await next();
    const bytes = await readLimitedBytes(
      c.req.raw,
      JSON_BODY_LIMIT,
      () => invalidRequest(`The request body is larger than ${JSON_BODY_LIMIT} bytes (2 MiB).`),
      deadlineMs,
    );
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    // Hono's cache holds promises in a field typed as the values (hono/dist/request.js).
    (c.req.bodyCache as unknown as { arrayBuffer: Promise<ArrayBuffer> }).arrayBuffer = Promise
      .resolve(buffer as ArrayBuffer);
    await next();
  };
}
