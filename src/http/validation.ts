/** zod results → the spec's 400 with a message naming the field. */
import type { z } from "zod";
import { formatJsonPath } from "../catalog/load.ts";
import { invalidRequest } from "./errors.ts";

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidRequest("The request body must be a JSON object.");
  }
  if (
    typeof (body as { model?: unknown }).model !== "string" ||
    (body as { model: string }).model === ""
  ) {
    throw invalidRequest("Missing 'model': name a model as '<provider>/<model>'.", "model");
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = formatJsonPath(issue.path);
  throw invalidRequest(`Invalid '${path}': ${issue.message}.`, String(issue.path[0] ?? ""));
}
