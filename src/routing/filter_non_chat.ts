/**
 * Rule 1 on the non-chat bodies. Embeddings fields pass to the provider unchanged (their effect
 * depends on the model) except where the provider's request schema lacks one or the provider
 * lists it in `unsupported_parameters`: then it is removed and named (`user`, kept for the
 * metadata, silently). The adapter renames what the schema names differently (`dimensions` →
 * Mistral's `output_dimension`). Transcription's optional fields likewise; `response_format` is
 * the adapter's (a JSON answer is reduced to text where the provider has no such field).
 */
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { acceptsField, type EndpointSchema } from "../catalog/provider_schema.ts";
import type { EmbeddingsRequest, TranscriptionRequest } from "../providers/adapter.ts";

function accepted(route: ResolvedRoute, schema: EndpointSchema | undefined, name: string): boolean {
  if (route.provider.unsupported_parameters.includes(name)) return false;
  return schema === undefined || acceptsField(schema, name);
}

export function filterEmbeddings(
  request: EmbeddingsRequest,
  route: ResolvedRoute,
): { request: EmbeddingsRequest; dropped: string[] } {
  const schema = route.requestSchema?.endpoints.embeddings;
  const dropped: string[] = [];
  let body: Record<string, unknown> | undefined;
  for (const name of Object.keys(request.body)) {
    if (name === "input" || accepted(route, schema, name)) continue;
    body ??= { ...request.body };
    delete body[name];
    const value = request.body[name];
    if (name !== "user" && value !== undefined && value !== null) dropped.push(name);
  }
  return { request: body === undefined ? request : { ...request, body }, dropped };
}

const TRANSCRIPTION_FIELDS = [
  ["language", "language"],
  ["prompt", "prompt"],
  ["temperature", "temperature"],
] as const satisfies ReadonlyArray<readonly [keyof TranscriptionRequest["fields"], string]>;

export function filterTranscription(
  request: TranscriptionRequest,
  route: ResolvedRoute,
): { request: TranscriptionRequest; dropped: string[] } {
  const schema = route.requestSchema?.endpoints.transcription;
  const dropped: string[] = [];
  let fields: TranscriptionRequest["fields"] | undefined;
  for (const [field, name] of TRANSCRIPTION_FIELDS) {
    if (request.fields[field] === undefined || accepted(route, schema, name)) continue;
    fields ??= { ...request.fields };
    delete fields[field];
    dropped.push(name);
  }
  return { request: fields === undefined ? request : { ...request, fields }, dropped };
}
