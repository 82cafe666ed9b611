/**
 * `servedHeaders` and `routedHeaders` add to the object they are given (the chat route builds
 * its answer's headers in one object): on random routes, dropped parameters and routing
 * decisions, the result must equal the object spread the routes used before, of the functions as
 * they were (copied below) — the same names, values and order.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { routedHeaders, servedHeaders } from "../../src/http/served_headers.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import type { RouterDecision } from "../../src/routing/route_plan.ts";

/** Before: each returned a fresh object, spread into the route's own. */
function servedBefore(requestId: string, route: ResolvedRoute, dropped: readonly string[] = []) {
  const headers: Record<string, string> = {
    "x-sovra-request-id": requestId,
    "x-sovra-provider": route.providerId,
  };
  if (dropped.length > 0) headers["x-sovra-dropped-params"] = dropped.map(headerSafe).join(",");
  return headers;
}

function headerSafe(name: string): string {
  if (/^[\x21-\x2b\x2d-\x7e]+$/.test(name)) return name;
  let out = "";
  for (const byte of new TextEncoder().encode(name)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function routedBefore(
  served: { route: ResolvedRoute; fallbacks: number; routing?: RouterDecision },
): Record<string, string> {
  if (!served.routing) return {};
  const fell = served.fallbacks > 0
    ? `; served after ${served.fallbacks} failed attempt${served.fallbacks > 1 ? "s" : ""}`
    : "";
  return {
    "x-sovra-routed-model": served.route.model.id,
    "x-sovra-routing-policy": served.routing.policy,
    "x-sovra-routing-reason": (served.routing.reason + fell).replace(/[^\x20-\x7e]/g, "?"),
  };
}

const route = (providerId: string, modelId: string) =>
  ({ providerId, model: { id: modelId } }) as unknown as ResolvedRoute;

Deno.test("servedHeaders and routedHeaders into one object equal the spread of their own", () => {
  fc.assert(
    fc.property(
      fc.string(),
      fc.string(),
      fc.string(),
      fc.array(fc.string({ unit: "binary" }), { maxLength: 4 }),
      fc.option(fc.record({ policy: fc.string(), reason: fc.string({ unit: "binary" }) }), {
        nil: undefined,
      }),
      fc.nat(3),
      fc.boolean(),
      (requestId, providerId, modelId, dropped, routing, fallbacks, stream) => {
        const served = {
          route: route(providerId, modelId),
          fallbacks,
          ...(routing ? { routing } : {}),
        };
        const own: Record<string, string> = stream
          ? { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }
          : { "content-type": "application/json" };
        const spread = {
          ...own,
          ...servedBefore(requestId, served.route, dropped),
          ...routedBefore(served),
        };
        const into = routedHeaders(
          served,
          servedHeaders(requestId, served.route, dropped, { ...own }),
        );
        assert.deepEqual(Object.entries(into), Object.entries(spread));
        // Without a target: a fresh object, as before.
        assert.deepEqual(
          Object.entries(servedHeaders(requestId, served.route, dropped)),
          Object.entries(servedBefore(requestId, served.route, dropped)),
        );
        assert.deepEqual(
          Object.entries(routedHeaders(served)),
          Object.entries(routedBefore(served)),
        );
      },
    ),
    { numRuns: 1_000 },
  );
});
