/**
 * Every endpoint declared once — method, path, its OpenAPI operation, its gate and its handler
 * — so the app's routes, `/openapi.json` and the 405 `Allow` table cannot drift apart.
 * Operations are tied to the zod schemas that validate their bodies and answers.
 */
import type { Handler } from "hono";
import type { AppDeps } from "../deps.ts";
import { BILLED_ENDPOINTS } from "../billed_endpoints.ts";
import type { AppEnv } from "./context.ts";
import { buildOpenApiDocument, type OperationSpec } from "./openapi.ts";
import { chatCompletionsHandler } from "./routes/chat_completions.ts";
import { responsesHandler } from "./routes/responses.ts";
import { embeddingsHandler } from "./routes/embeddings.ts";
import { transcriptionsHandler } from "./routes/audio_transcriptions.ts";
import { speechHandler } from "./routes/audio_speech.ts";
import { modelEntryHandler, modelListHandler } from "./routes/models.ts";
import { healthHandler, readyHandler } from "./routes/health.ts";
import { ChatCompletionRequestSchema } from "../api_formats/chat/request_schema.ts";
import { ResponsesRequestSchema } from "../api_formats/responses/request_schema.ts";
import { EmbeddingsRequestSchema } from "../api_formats/embeddings/request_schema.ts";
import { SpeechRequestSchema } from "../api_formats/audio/speech_request.ts";
import {
  ChatCompletionSchema,
  EmbeddingsListSchema,
  HealthSchema,
  ModelEntrySchema,
  ModelListSchema,
  ResponseObjectSchema,
  TranscriptionSchema,
} from "./response_schemas.ts";

/** Server-sent events: the body is text (see the spec's Events section). */
const SSE = { type: "string", description: "Server-sent events" };
const SERVED = {
  "x-sovra-provider": "The provider that served the request.",
  "x-sovra-dropped-params":
    "Parameters removed or ignored for this route, comma-separated (message fields as `messages[].name`).",
  "x-sovra-adjusted-params":
    "Values changed for this route, comma-separated, e.g. `reasoning.effort=medium->high` (an effort the model lacks, mapped to the nearest it has).",
  "x-ratelimit-remaining-requests": "Requests this key may still make in the window.",
};

export interface Endpoint extends OperationSpec {
  /** `billed`: auth, rate limit and credit gate; `open`: auth and rate limit; `none`: public. */
  gate: "billed" | "open" | "none";
  /** Builds the route's handler once per app. */
  handler(deps: AppDeps): Handler<AppEnv>;
}

/** `GET /openapi.json`: the document of this very list, rendered once per app. */
function openApiHandler(): Handler<AppEnv> {
  const body = JSON.stringify(buildOpenApiDocument(operations()));
  return function openApi() {
    return new Response(body, { headers: { "content-type": "application/json" } });
  };
}

export const endpoints: readonly Endpoint[] = [
  {
    path: BILLED_ENDPOINTS.chat.path,
    method: "post",
    summary: "Create a chat completion (JSON, or an SSE stream when `stream` is true)",
    body: {
      schema: ChatCompletionRequestSchema,
      example: { model: "mistral/mistral-small-2506", messages: [{ role: "user", content: "Hi" }] },
    },
    responses: {
      "200": {
        description: "A chat completion object, or `text/event-stream` chunks",
        content: { "application/json": ChatCompletionSchema, "text/event-stream": SSE },
        headers: SERVED,
      },
    },
    gate: "billed",
    handler: chatCompletionsHandler,
  },
  {
    path: BILLED_ENDPOINTS.responses.path,
    method: "post",
    summary: "Create a response (stateless Responses API; named SSE events when `stream` is true)",
    body: {
      schema: ResponsesRequestSchema,
      example: { model: "mistral/mistral-small-2506", input: "Hi", store: false },
    },
    responses: {
      "200": {
        description: "A `response` object, or `text/event-stream` named events",
        content: { "application/json": ResponseObjectSchema, "text/event-stream": SSE },
        headers: SERVED,
      },
    },
    gate: "billed",
    handler: responsesHandler,
  },
  {
    path: BILLED_ENDPOINTS.embeddings.path,
    method: "post",
    summary:
      "Create embeddings (input forms and `encoding_format`/`dimensions` forwarded unchanged)",
    body: {
      schema: EmbeddingsRequestSchema,
      example: { model: "mistral/mistral-embed", input: "Hi" },
    },
    responses: {
      "200": {
        description: "OpenAI's embeddings list",
        content: { "application/json": EmbeddingsListSchema },
        headers: SERVED,
      },
    },
    gate: "billed",
    handler: embeddingsHandler,
  },
  {
    path: BILLED_ENDPOINTS.transcriptions.path,
    method: "post",
    summary: "Transcribe audio (multipart; file ≤ 25 MB, request ≤ 26 MB, upload ≤ 5 min)",
    rawBodySchema: {
      contentType: "multipart/form-data",
      schema: {
        type: "object",
        required: ["file", "model"],
        properties: {
          file: {
            type: "string",
            contentMediaType: "application/octet-stream",
            description: "Audio: wav, mp3, flac, ogg/opus, m4a, webm",
          },
          model: { type: "string" },
          language: { type: "string" },
          prompt: { type: "string" },
          temperature: { type: "number" },
          response_format: { type: "string", enum: ["json", "text"], default: "json" },
          user: { type: "string" },
        },
      },
    },
    responses: {
      "200": {
        description: "`{text}` (json) or plain text",
        content: {
          "application/json": TranscriptionSchema,
          "text/plain": { type: "string" },
        },
        headers: SERVED,
      },
      "503": {
        description: "`transcriptions_busy`",
        content: { "application/json": { $ref: "#/components/schemas/Error" } },
        headers: { "retry-after": "Seconds to wait (10)." },
      },
    },
    gate: "billed",
    handler: transcriptionsHandler,
  },
  {
    path: BILLED_ENDPOINTS.speech.path,
    method: "post",
    summary: "Synthesize speech; the body is the audio",
    body: {
      schema: SpeechRequestSchema,
      example: { model: "nvidia/nvr-tts-de-de", input: "Hallo", voice: "German-DE-Male-1" },
    },
    responses: {
      "200": {
        description: "Audio bytes in the requested format",
        content: {
          "audio/mpeg": { type: "string", contentMediaType: "audio/mpeg" },
          "audio/wav": { type: "string", contentMediaType: "audio/wav" },
          "application/octet-stream": {
            type: "string",
            contentMediaType: "application/octet-stream",
          },
        },
        headers: SERVED,
      },
    },
    gate: "billed",
    handler: speechHandler,
  },
  {
    path: "/v1/models",
    method: "get",
    summary: "List the active models",
    responses: {
      "200": {
        description: '`{object: "list", data: [...]}`',
        content: { "application/json": ModelListSchema },
      },
    },
    gate: "open",
    handler: modelListHandler,
  },
  {
    path: "/v1/models/{id}",
    method: "get",
    summary:
      "One active model (the id includes its provider: `/v1/models/mistral/mistral-large-2512`)",
    pathParams: {
      id: {
        description: "A model id, '<provider>/<model>'; its slash may be sent as is or as %2F.",
        example: "mistral/mistral-small-2506",
      },
    },
    responses: {
      "200": { description: "A model entry", content: { "application/json": ModelEntrySchema } },
    },
    gate: "open",
    handler: modelEntryHandler,
  },
  {
    path: "/healthz",
    method: "get",
    summary: "Liveness probe (no authentication)",
    responses: {
      "200": { description: '`{status: "ok"}`', content: { "application/json": HealthSchema } },
    },
    gate: "none",
    handler: healthHandler,
  },
  {
    path: "/readyz",
    method: "get",
    summary: "Readiness probe (no authentication): 503 `draining` from the start of a shutdown",
    responses: {
      "200": {
        description: '`{status: "ready"}`',
        content: {
          "application/json": { type: "object", properties: { status: { const: "ready" } } },
        },
      },
      "503": {
        description: "`draining`: send no new requests",
        content: { "application/json": { $ref: "#/components/schemas/Error" } },
      },
    },
    gate: "none",
    handler: readyHandler,
  },
  {
    path: "/openapi.json",
    method: "get",
    summary: "This document (no authentication)",
    responses: {
      "200": {
        description: "OpenAPI 3.1",
        content: { "application/json": { type: "object" } },
      },
    },
    gate: "none",
    handler: openApiHandler,
  },
];

/** The OpenAPI operations (public endpoints marked `auth: false`). */
export function operations(): OperationSpec[] {
  return endpoints.map(({ gate, handler: _handler, ...operation }) => ({
    ...operation,
    ...(gate === "none" ? { auth: false } : {}),
    ...(gate === "billed" ? { billed: true } : {}),
  }));
}

/** Hono's form of an OpenAPI path: `{id}` holds the rest of the path (model ids have a slash). */
export function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1{.+}");
}
