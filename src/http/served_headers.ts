/**
 * The response headers every served request carries: request id, provider, dropped params;
 * and, when a routing policy chose the model, which model served and why.
 */
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { RouterDecision } from "../routing/route_plan.ts";

/** Added to `headers` (a fresh object when not given), which is returned. */
export function servedHeaders(
  requestId: string,
  route: ResolvedRoute,
  dropped: readonly string[] = [],
  headers: Record<string, string> = {},
): Record<string, string> {
  headers["x-sovra-request-id"] = requestId;
  headers["x-sovra-provider"] = route.providerId;
  if (dropped.length > 0) headers["x-sovra-dropped-params"] = dropped.map(headerSafe).join(",");
  return headers;
}

/**
 * `x-sovra-adjusted-params`: values changed for the route that served, e.g.
 * `reasoning.effort=medium->high` (an effort the model lacks, mapped to the nearest it has).
 */
export function adjustedHeader(
  served: { adjusted?: readonly string[] },
  headers: Record<string, string>,
): Record<string, string> {
  if (served.adjusted?.length) {
    headers["x-sovra-adjusted-params"] = served.adjusted.map(headerSafe).join(",");
  }
  return headers;
}

/**
 * A client's field name as it can travel in a header list: names outside visible ASCII (or
 * holding a comma) are percent-encoded, so no body field can break the answer.
 */
function headerSafe(name: string): string {
  if (/^[\x21-\x2b\x2d-\x7e]+$/.test(name)) return name;
  // UTF-8 bytes (a lone surrogate becomes U+FFFD, where encodeURIComponent would throw).
  let out = "";
  for (const byte of new TextEncoder().encode(name)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * `x-sovra-routed-model` (the catalog model that served), `x-sovra-routing-policy` and
 * `x-sovra-routing-reason` (one line: difficulty, dial, rule; a fallback says so). Added to
 * `headers` (a fresh object when not given), which is returned.
 */
export function routedHeaders(
  served: { route: ResolvedRoute; fallbacks: number; routing?: RouterDecision },
  headers: Record<string, string> = {},
): Record<string, string> {
  if (!served.routing) return headers;
  const fell = served.fallbacks > 0
    ? `; served after ${served.fallbacks} failed attempt${served.fallbacks > 1 ? "s" : ""}`
    : "";
  headers["x-sovra-routed-model"] = served.route.model.id;
  headers["x-sovra-routing-policy"] = served.routing.policy;
  // Header values are Latin-1: anything else becomes '?'.
  headers["x-sovra-routing-reason"] = (served.routing.reason + fell).replace(/[^\x20-\x7e]/g, "?");
  return headers;
}

/**
 * The answer's `model`: the catalog model that served — the requested one, or for
 * `router/<id>` the pool model the router chose (or fell back to).
 */
export function answerModel(served: { route: ResolvedRoute }): string {
  return served.route.model.id;
}
