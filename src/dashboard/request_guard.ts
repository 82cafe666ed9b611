/**
 * CSRF defence for every state-changing request, besides the SameSite=Strict session cookie:
 * - forms (urlencoded, multipart, text/plain): `hono/csrf` — the Origin must be the
 *   dashboard's own, or `Sec-Fetch-Site: same-origin`;
 * - the JSON API: a POST must carry `Content-Type: application/json` (a cross-site page cannot
 *   send it, nor PATCH or DELETE, without a CORS preflight, and the dashboard answers no
 *   preflight), and an Origin or Sec-Fetch-Site header, when present, must say same-origin.
 *   Scripts (curl) send neither.
 */
import type { MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { csrfRefused } from "./errors.ts";
import { GatewayError } from "../errors.ts";

const SAFE = /^(GET|HEAD|OPTIONS)$/;

export function requestGuard(publicOrigin: () => string): MiddlewareHandler {
  const allowed = (origin: string, requestUrl: string) =>
    origin === publicOrigin() || origin === new URL(requestUrl).origin;
  const forms = csrf({ origin: (origin, c) => allowed(origin, c.req.url) });
  return async (c, next) => {
    if (SAFE.test(c.req.method)) return await next();
    if (c.req.path.startsWith("/api/")) {
      const type = c.req.header("content-type") ?? "";
      if (c.req.method === "POST" && !/^application\/json\b/i.test(type)) {
        throw new GatewayError(415, "unsupported_media_type", "Send JSON (application/json).", {
          type: "invalid_request_error",
        });
      }
      const origin = c.req.header("origin");
      const site = c.req.header("sec-fetch-site");
      if (origin !== undefined && !allowed(origin, c.req.url)) throw csrfRefused();
      if (site !== undefined && site !== "same-origin" && site !== "none") throw csrfRefused();
      return await next();
    }
    try {
      return await forms(c, next);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      if ((error as { status?: number }).status === 403) throw csrfRefused();
      throw error;
    }
  };
}
