/**
 * The first middleware: gives every request its id and start time, and stamps the id on every
 * answer — served, refused or failed — as `x-sovra-request-id` and as `x-request-id` (which
 * the official SDKs read into `_request_id`), so a user can always quote the id the logs hold.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { timeOrderedId } from "../../util/ids.ts";
import { isAnswer } from "../answer.ts";

export function requestId(now: () => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const startedAt = now();
    const id = timeOrderedId("req_", startedAt);
    const start = { requestId: id, startedAt };
    c.set("request", start);
    await next();
    // A route's answer carries them already (`http/answer.ts`); errors and 404s get them here.
    if (!isAnswer(start, c.res)) setHeaders(c, { "x-sovra-request-id": id, "x-request-id": id });
  };
}

/** Sets headers on the finished answer (a copy when its headers are immutable). */
export function setHeaders(
  c: { res: Response },
  headers: Record<string, string>,
): void {
  // `for … in` over the plain object: Object.entries allocated an array per header, twice a
  // request (this and the gate's rate headers).
  try {
    for (const name in headers) c.res.headers.set(name, headers[name]!);
  } catch {
    const copy = new Response(c.res.body, c.res);
    for (const name in headers) copy.headers.set(name, headers[name]!);
    c.res = copy;
  }
}
