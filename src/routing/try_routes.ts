/**
 * Rule 4: try the model's routes in order. A retryable failure (429, 5xx, connect error,
 * 401/403) before anything reached the client moves on to the next route; any other failure
 * ends the request. When no route is left the last failure decides the client's error.
 */
import type { ResolvedRoute } from "../providers/adapter.ts";
import { UpstreamFailure } from "../providers/upstream_failure.ts";
import { GatewayError, internalError } from "../http/errors.ts";
import { RouteMetrics } from "./route_metrics.ts";

export interface RouteSuccess<T> {
  value: T;
  route: ResolvedRoute;
  /** Routes tried before the one that served. */
  fallbacks: number;
}

export interface TryRoutesOptions {
  /** Aborted when the client leaves: stops trying. */
  signal: AbortSignal;
  metrics?: RouteMetrics;
  /**
   * Decides before any upstream call whether a route can express the request; throws a
   * GatewayError (400) otherwise. On the primary route that refusal is the answer; a standby
   * that cannot express the request is skipped.
   */
  check?: (route: ResolvedRoute) => void;
  /** Told of every failed attempt (the metadata of a failed request names the last one). */
  onFailure?: (route: ResolvedRoute, attempts: number, failure: UpstreamFailure) => void;
}

/** The client-facing error for the last upstream failure (rule 4's table). */
export function failureToGatewayError(failure: UpstreamFailure): GatewayError {
  const error = clientError(failure);
  return new GatewayError(error.status, error.code, error.message, {
    type: error.type,
    headers: error.headers,
    ...(error.rawBody === undefined ? {} : { rawBody: error.rawBody }),
    fromUpstream: true,
  });
}

function clientError(failure: UpstreamFailure): GatewayError {
  switch (failure.kind) {
    case "rate_limited":
      return new GatewayError(
        429,
        "upstream_rate_limited",
        "The provider is rate limiting requests; retry later.",
        {
          headers: { "retry-after": String(Math.max(1, failure.retryAfterSeconds ?? 1)) },
        },
      );
    case "unavailable":
      return new GatewayError(502, "upstream_error", "The provider failed to answer.");
    case "auth":
      return new GatewayError(
        502,
        "upstream_auth_error",
        "The provider rejected the gateway's credentials.",
      );
    case "passthrough":
      return new GatewayError(failure.status ?? 400, "upstream_invalid_request", failure.message, {
        ...(failure.body === undefined ? {} : { rawBody: failure.body }),
      });
    case "invalid_request":
      return new GatewayError(400, "invalid_request", failure.message);
    default:
      failure.kind satisfies never;
      return internalError();
  }
}

export async function tryRoutes<T>(
  routes: readonly ResolvedRoute[],
  attempt: (route: ResolvedRoute) => Promise<T>,
  options: TryRoutesOptions,
): Promise<RouteSuccess<T>> {
  let last: UpstreamFailure | undefined;
  let tried = 0;
  for (const [i, route] of routes.entries()) {
    if (options.check) {
      try {
        options.check(route);
      } catch (error) {
        if (i === 0) throw error;
        continue;
      }
    }
    if (options.signal.aborted) break;
    const key = RouteMetrics.key(route.providerId, route.route.upstream_model);
    try {
      const value = await attempt(route);
      return { value, route, fallbacks: tried };
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      options.metrics?.recordFailure(key);
      tried++;
      options.onFailure?.(route, tried, error);
      last = error;
      if (!error.retryable) throw failureToGatewayError(error);
    }
  }
  if (last) throw failureToGatewayError(last);
  if (options.signal.aborted) {
    throw new GatewayError(499, "client_closed", "The client closed the request.");
  }
  throw new GatewayError(502, "upstream_error", "No route of this model can serve the request.");
}
