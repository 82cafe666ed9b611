/**
 * Rule 4: try the model's routes in order. A retryable failure (429, 5xx, connect error,
 * 401/403) before anything reached the client moves on to the next route; any other failure
 * ends the request. When no route is left the last failure decides the client's error.
 */
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { UpstreamFailure } from "../providers/upstream_failure.ts";
import { clientClosed, GatewayError, internalError } from "../errors.ts";
import { RouteMetrics } from "./route_metrics.ts";
import type { RouteCandidate } from "./route_plan.ts";

export interface RouteSuccess<T> {
  value: T;
  route: ResolvedRoute;
  /** Routes tried before the one that served. */
  fallbacks: number;
  /** Parameters removed for the route that served (rule 1). */
  dropped: string[];
  /** Values changed for the route that served (reasoning effort mapped to the nearest). */
  adjusted?: string[];
}

export interface TryRoutesOptions {
  /** Aborted when the client leaves: stops trying. */
  signal: AbortSignal;
  metrics?: RouteMetrics;
  /** Told of every failed attempt (the metadata of a failed request names the last one). */
  onFailure?: (route: ResolvedRoute, attempts: number, failure: UpstreamFailure) => void;
  /** Wraps each attempt (telemetry: duration, outcome, span); `index` is the fallback index. */
  observe?:
    | (<T>(route: ResolvedRoute, index: number, run: () => Promise<T>) => Promise<T>)
    | undefined;
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

/**
 * Executes a routing plan: its candidates in order. A refused first candidate is the answer
 * (rule 7), a refused later one is skipped; no decision about routes is taken here.
 */
export async function tryRoutes<R, T>(
  candidates: readonly RouteCandidate<R>[],
  attempt: (candidate: RouteCandidate<R>) => Promise<T>,
  options: TryRoutesOptions,
): Promise<RouteSuccess<T>> {
  let last: UpstreamFailure | undefined;
  let tried = 0;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    if (candidate.refusal) {
      if (i === 0) throw candidate.refusal;
      continue;
    }
    if (options.signal.aborted) break;
    const { route } = candidate;
    try {
      const value = await (options.observe
        ? options.observe(route, tried, () =>
          attempt(candidate))
        : attempt(candidate));
      const success: RouteSuccess<T> = {
        value,
        route,
        fallbacks: tried,
        dropped: candidate.dropped,
      };
      if (candidate.adjusted?.length) success.adjusted = candidate.adjusted;
      return success;
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      options.metrics?.recordFailure(
        RouteMetrics.key(route.providerId, route.route.upstream_model),
      );
      tried++;
      options.onFailure?.(route, tried, error);
      last = error;
      if (!error.retryable) throw failureToGatewayError(error);
    }
  }
  if (last) throw failureToGatewayError(last);
  if (options.signal.aborted) {
    throw clientClosed();
  }
  throw new GatewayError(502, "upstream_error", "No route of this model can serve the request.");
}
