/** The API's operations for `/openapi.json`, each tied to the zod schema that validates it. */
import type { OperationSpec } from "./openapi.ts";
import { ChatCompletionRequestSchema } from "../dialects/chat/request_schema.ts";
import { ResponsesRequestSchema } from "../dialects/responses/request_schema.ts";
import { EmbeddingsRequestSchema } from "../dialects/embeddings/request_schema.ts";
import { SpeechRequestSchema } from "../dialects/audio/speech_request.ts";

export const operations: OperationSpec[] = [
  {
    path: "/v1/chat/completions",
    method: "post",
    summary: "Create a chat completion (JSON, or an SSE stream when `stream` is true)",
    body: { schema: ChatCompletionRequestSchema },
    responses: {
      "200": {
        description: "A chat completion object, or `text/event-stream` chunks",
        contentType: "application/json",
      },
    },
  },
  {
    path: "/v1/responses",
    method: "post",
    summary: "Create a response (stateless Responses API; named SSE events when `stream` is true)",
    body: { schema: ResponsesRequestSchema },
    responses: {
      "200": {
        description: "A `response` object, or `text/event-stream` named events",
        contentType: "application/json",
      },
    },
  },
  {
    path: "/v1/embeddings",
    method: "post",
    summary:
      "Create embeddings (input forms and `encoding_format`/`dimensions` forwarded unchanged)",
    body: { schema: EmbeddingsRequestSchema },
    responses: {
      "200": { description: "OpenAI's embeddings list", contentType: "application/json" },
    },
  },
  {
    path: "/v1/audio/transcriptions",
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
      "200": { description: "`{text}` (json) or plain text", contentType: "application/json" },
      "503": { description: "`transcriptions_busy`, with `Retry-After: 10`" },
    },
  },
  {
    path: "/v1/audio/speech",
    method: "post",
    summary: "Synthesize speech; the body is the audio",
    body: { schema: SpeechRequestSchema },
    responses: { "200": { description: "Audio bytes", contentType: "audio/mpeg" } },
  },
  {
    path: "/v1/models",
    method: "get",
    summary: "List the active models",
    responses: {
      "200": { description: '`{object: "list", data: [...]}`', contentType: "application/json" },
    },
  },
  {
    path: "/v1/models/{id}",
    method: "get",
    summary:
      "One active model (the id includes its provider: `/v1/models/mistral/mistral-large-2411`)",
    responses: { "200": { description: "A model entry", contentType: "application/json" } },
  },
  {
    path: "/healthz",
    method: "get",
    summary: "Liveness probe (no authentication)",
    auth: false,
    responses: { "200": { description: '`{status: "ok"}`', contentType: "application/json" } },
  },
  {
    path: "/openapi.json",
    method: "get",
    summary: "This document",
    responses: { "200": { description: "OpenAPI 3.1", contentType: "application/json" } },
  },
];
