/**
 * `GET /metrics` (Prometheus text format). `metricsResponse` renders the scrape, for any server
 * that wants to mount it (e.g. the dashboard's); `metricsHandler` is the whole small server the
 * gateway runs when `SOVRA_METRICS_PORT` is set. Never on the public request port: the figures
 * (models, providers, money billed, failure rates) are operator data, and a scrape must not
 * compete with or be rate limited like client traffic.
 */
import type { Telemetry } from "./telemetry.ts";
import { GatewayError } from "../errors.ts";

export async function metricsResponse(telemetry: Telemetry): Promise<Response> {
  return new Response(await telemetry.exposition(), {
    headers: { "content-type": telemetry.contentType },
  });
}

export function metricsHandler(
  telemetry: Telemetry,
): (request: Request) => Response | Promise<Response> {
  return (request) => {
    const path = new URL(request.url).pathname;
    if (path !== "/metrics") {
      return new GatewayError(404, "not_found", `No route for ${request.method} ${path}.`)
        .toResponse();
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new GatewayError(405, "method_not_allowed", "Use GET /metrics.", {
        headers: { allow: "GET, HEAD" },
      }).toResponse();
    }
    return metricsResponse(telemetry);
  };
}
