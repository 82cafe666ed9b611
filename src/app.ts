/**
 * createApp(deps): middleware order and route mounting. No I/O at import; `main.ts` and the
 * tests hand in the dependencies.
 */
import { Hono } from "hono";
import type { AppDeps } from "./deps.ts";
import type { AppEnv } from "./http/context.ts";
import { GatewayError, internalError, methodNotAllowed, modelNotFound } from "./errors.ts";
import { requestId } from "./http/middleware/request_id.ts";
import { allowedMethods } from "./http/allowed_methods.ts";
import { gate } from "./http/middleware/gate.ts";
import { chatCompletionsHandler } from "./http/routes/chat_completions.ts";
import { modelEntryBody, modelListBody } from "./http/routes/models.ts";
import { buildOpenApiDocument } from "./http/openapi.ts";
import { operations } from "./http/operations.ts";
import { errorMessage } from "./log.ts";
import { responsesHandler } from "./http/routes/responses.ts";
import { embeddingsHandler } from "./http/routes/embeddings.ts";
import { transcriptionsHandler } from "./http/routes/audio_transcriptions.ts";
import { speechHandler } from "./http/routes/audio_speech.ts";
import { createTranscriptionSlots } from "./dialects/audio/transcription_slots.ts";
import { allowedModelsHeader } from "./http/policy_headers.ts";

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestId(deps.now));
  const openApiBody = JSON.stringify(buildOpenApiDocument(operations));

  app.onError((error, c) => {
    if (error instanceof GatewayError) return error.toResponse();
    if (c.req.raw.signal.aborted) {
      // The client left while the request was handled (its upstream fetch was aborted).
      deps.log.debug("client disconnected", { path: c.req.path });
      return new GatewayError(499, "client_closed", "The client closed the request.").toResponse();
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

  app.get("/healthz", () => {
    const state = deps.store.health?.();
    if (!state) return Response.json({ status: "ok" });
    return Response.json({ status: state.reachable ? "ok" : "degraded", state });
  });

  // Readiness: unready from the start of a drain, so a load balancer stops sending first.
  app.get(
    "/readyz",
    () =>
      deps.lifecycle.draining
        ? new GatewayError(503, "draining", "This instance is shutting down.").toResponse()
        : Response.json({ status: "ready" }),
  );

  const open = gate(deps, { billed: false });
  const billed = gate(deps, { billed: true });
  const json = { "content-type": "application/json" };

  // The API description is public, like the liveness probe: tools fetch it without a key.
  app.get("/openapi.json", () => new Response(openApiBody, { headers: json }));
  app.get(
    "/v1/models",
    open,
    (c) =>
      new Response(modelListBody(deps.catalog.current), {
        headers: { ...json, ...allowedModelsHeader(deps.catalog.current, c.get("state").policy) },
      }),
  );
  app.get("/v1/models/:id{.+}", open, (c) => {
    // Hono has already decoded the parameter once; decoding again broke ids holding '%'.
    const id = c.req.param("id");
    const body = modelEntryBody(deps.catalog.current, id);
    if (body === undefined) throw modelNotFound(id, deps.catalog.current.suggest(id));
    return new Response(body, { headers: json });
  });
  app.post("/v1/chat/completions", billed, chatCompletionsHandler(deps));
  app.post("/v1/responses", billed, responsesHandler(deps));
  app.post("/v1/embeddings", billed, embeddingsHandler(deps));
  const slots = createTranscriptionSlots({
    max: deps.config.transcriptionSlots,
    waitMs: deps.config.transcriptionWaitMs,
  });
  deps.telemetry.observeSlots(slots);
  app.post("/v1/audio/transcriptions", billed, transcriptionsHandler(deps, slots));
  app.post("/v1/audio/speech", billed, speechHandler(deps));
  return app;
}
