/** The API's operations for `/openapi.json`, each tied to the zod schema that validates it. */
import type { OperationSpec } from "./openapi.ts";
import { ChatCompletionRequestSchema } from "../dialects/chat/request_schema.ts";

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
    path: "/v1/models",
    method: "get",
    summary: "List the active models",
    responses: {
      "200": { description: '`{object: "list", data: [...]}`', contentType: "application/json" },
    },
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
