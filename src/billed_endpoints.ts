/**
 * The billed endpoints, once: each name (the request log's `endpoint`, the route plan's, the
 * metrics' `endpoint` label) with its path, the kind of model it serves and its OpenTelemetry
 * GenAI operation. Every other list of endpoint names is derived from this one or checked
 * against it by the compiler, so a new endpoint starts here and the type checker points at
 * each place that must learn it (ARCHITECTURE.md, "To add X").
 */
export const BILLED_ENDPOINTS = {
  chat: { path: "/v1/chat/completions", kind: "chat", operation: "chat" },
  responses: { path: "/v1/responses", kind: "chat", operation: "chat" },
  embeddings: { path: "/v1/embeddings", kind: "embedding", operation: "embeddings" },
  transcriptions: {
    path: "/v1/audio/transcriptions",
    kind: "transcription",
    operation: "transcription",
  },
  speech: { path: "/v1/audio/speech", kind: "speech", operation: "speech" },
} as const satisfies Record<string, BilledEndpoint>;

export interface BilledEndpoint {
  /** Its path under the API's origin. */
  path: string;
  /** The catalog `kind` of the models it serves (`catalog/schema.ts` `ModelKind`). */
  kind: string;
  /** Its `gen_ai.operation.name`. */
  operation: string;
}

export type EndpointName = keyof typeof BILLED_ENDPOINTS;

export const ENDPOINT_NAMES = Object.keys(BILLED_ENDPOINTS) as [EndpointName, ...EndpointName[]];

export function isEndpointName(name: string): name is EndpointName {
  return Object.hasOwn(BILLED_ENDPOINTS, name);
}
