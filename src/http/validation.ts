/** zod results → the spec's 400 with a message naming the field. */
import type { z } from "zod";
import { zodFailure } from "../api_formats/zod_failure.ts";
import { invalidRequest } from "../errors.ts";

/** A JSON object with a non-empty string `model`, or the spec's 400 `invalid_request`. */
export function requireModelField(body: unknown): Record<string, unknown> & { model: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidRequest("The request body must be a JSON object.");
  }
  const model = (body as { model?: unknown }).model;
  if (typeof model !== "string" || model === "") {
    throw invalidRequest("Missing 'model': name a model as '<provider>/<model>'.", "model");
  }
  return body as Record<string, unknown> & { model: string };
}

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  requireModelField(body);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw zodFailure(result.error);
}
