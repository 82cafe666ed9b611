/** `GET /healthz` (liveness, plus the store backend's own state) and `GET /readyz`. */
import type { AppDeps } from "../../deps.ts";
import { GatewayError } from "../../errors.ts";

export function healthHandler(deps: AppDeps) {
  return function health() {
    const state = deps.store.health?.();
    if (!state) return Response.json({ status: "ok" });
    return Response.json({ status: state.reachable ? "ok" : "degraded", state });
  };
}

/** Readiness: unready from the start of a drain, so a load balancer stops sending first. */
export function readyHandler(deps: AppDeps) {
  return function ready() {
    return deps.lifecycle.draining
      ? new GatewayError(503, "draining", "This instance is shutting down.").toResponse()
      : Response.json({ status: "ready" });
  };
}
