/**
 * A whole (non-streamed) upstream answer read as JSON and validated with the provider's wire
 * schema. An unreadable or unexpected answer is `unavailable` (a broken upstream, so the next
 * route is tried); an abort keeps its own reason.
 */
import type { z } from "zod";
import { UpstreamFailure } from "./upstream_failure.ts";

export async function readAnswer<S extends z.ZodType>(
  response: Response,
  schema: S,
  signal: AbortSignal,
): Promise<z.output<S>> {
  let json: unknown;
  try {
    json = await response.json();
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    throw new UpstreamFailure("unavailable", "The provider sent an unreadable answer.", {
      cause: error,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new UpstreamFailure("unavailable", "The provider's answer has an unexpected shape.");
  }
  return parsed.data;
}
