/**
 * The client's `POST /v1/embeddings` body. Tolerant: fields the gateway does not know pass
 * through to the provider unchanged (their effect depends on the model).
 */
import { z } from "zod";
import { EndUserId } from "../../canonical/end_user.ts";
import type { EmbeddingsRequest } from "../../providers/adapter.ts";
import { refusedField } from "../../errors.ts";
import { zodFailure } from "../zod_failure.ts";

const tokenArray = z.array(z.number().int().nonnegative()).min(1);

export const EmbeddingsInputSchema = z.union([
  z.string().min(1),
  z.array(z.string().min(1)).min(1),
  tokenArray,
  z.array(tokenArray).min(1),
]);
export type EmbeddingsInput = z.infer<typeof EmbeddingsInputSchema>;

export const EmbeddingsRequestSchema = z.looseObject({
  model: z.string().min(1).describe("An embedding model id, '<provider>/<model>'."),
  input: EmbeddingsInputSchema.describe(
    "Text to embed: a string, an array of strings, or token arrays. Must not be empty.",
  ),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().positive().optional(),
  user: EndUserId.optional().describe("An end-user id, kept in the request metadata."),
  stream: z.boolean().nullish().describe("Not supported: `true` is refused with 400."),
});
export type EmbeddingsRequestBody = z.infer<typeof EmbeddingsRequestSchema>;

export interface ParsedEmbeddingsRequest {
  /** The requested model id, for the catalog lookup. */
  model: string;
  input: EmbeddingsInput;
  user: string | undefined;
  /** What the adapter forwards: the body minus `model` and `stream`, otherwise unchanged. */
  upstream: EmbeddingsRequest;
}

/** Validates a parsed JSON body; throws the spec's 400s as `GatewayError`. */
export function parseEmbeddingsRequest(raw: unknown): ParsedEmbeddingsRequest {
  if (isObject(raw) && raw.stream !== undefined && raw.stream !== null && raw.stream !== false) {
    throw refusedField("stream", "Streaming is not supported for embeddings.");
  }
  const result = EmbeddingsRequestSchema.safeParse(raw);
  if (!result.success) throw zodFailure(result.error);
  const { model: _model, stream: _stream, ...body } = raw as Record<string, unknown>;
  return {
    model: result.data.model,
    input: result.data.input,
    user: result.data.user,
    upstream: { model: result.data.model, body },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
