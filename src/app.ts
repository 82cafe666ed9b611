/**
 * createApp(deps): middleware order, error rendering, and the routes mounted from the one
 * endpoint list (`http/endpoints.ts`). No I/O at import; `main.ts` and the tests hand in the
 * dependencies.
 */
import { Hono } from "hono";
import type { AppDeps } from "./deps.ts";
import type { AppEnv } from "./http/context.ts";
import { clientClosed, GatewayError, internalError, methodNotAllowed } from "./errors.ts";
import { requestId } from "./http/middleware/request_id.ts";
import { allowedMethods } from "./http/allowed_methods.ts";
import { gate } from "./http/middleware/gate.ts";
import { endpoints, honoPath } from "./http/endpoints.ts";
import { errorMessage } from "./log.ts";

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestId(deps.now));

  app.onError((error, c) => {
    if (error instanceof GatewayError) return error.toResponse();
    if (c.req.raw.signal.aborted) {
      // The client left while the request was handled (its upstream fetch was aborted).
      deps.log.debug("client disconnected", { path: c.req.path });
      return clientClosed().toResponse();
    }
    deps.log.error("unhandled error", { path: c.req.path, reason: errorMessage(error) });
    return internalError().toResponse();
  });
  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0) {
      return methodNotAllowed(c.req.method, c.req.path, allowed).toResponse();
    }
    return new GatewayError(404, "not_found", `No route for ${c.req.method} ${c.req.path}.`)
      .toResponse();
  });

  for (const endpoint of endpoints) {
    const handler = endpoint.handler(deps);
    const path = honoPath(endpoint.path);
    const method = endpoint.method.toUpperCase();
    if (endpoint.gate === "none") app.on(method, path, handler);
    else {
      const billed = endpoint.gate === "billed";
      app.on(method, path, gate(deps, { billed, routePath: path }), handler);
    }
  }
  return app;
}
