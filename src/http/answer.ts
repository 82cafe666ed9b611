/**
 * A gated route's answer, built with every header it carries in one construction: the route's
 * own, then the gate's rate-limit and policy-note headers and the request id — the same names,
 * values and order the middlewares would set on it afterwards. Deno.serve sends a Response with a
 * string or byte body natively when nothing has read its `headers` since construction (its
 * headers converted once, there); reading `response.headers` later drops that and converts
 * them again, and each `headers.set` validates its header once more. So the middlewares leave an
 * answer built here alone (`isAnswer`) and set their headers only on the others (errors, 404s).
 */
import type { Context } from "hono";
import type { AppEnv, RequestStart } from "./context.ts";

/** `headers`: the route's own, a fresh object (completed here, then handed to the Response). */
export function respond(
  c: Context<AppEnv>,
  body: BodyInit | null,
  headers: Record<string, string>,
): Response {
  const state = c.get("state");
  const rate = state.rateHeaders;
  for (const name in rate) headers[name] = rate[name]!;
  const notes = state.notes?.headers;
  if (notes !== undefined) { for (const name in notes) headers[name] = notes[name]!; }
  headers["x-sovra-request-id"] = state.requestId;
  headers["x-request-id"] = state.requestId;
  const response = new Response(body, { headers });
  const start = c.get("request");
  start.answer = response;
  start.answerStreams = headers["content-type"]?.startsWith("text/event-stream") ?? false;
  return response;
}

/** True when `response` is the request's answer built by `respond` (all headers on it). */
export function isAnswer(start: RequestStart, response: Response): boolean {
  return start.answer === response;
}
