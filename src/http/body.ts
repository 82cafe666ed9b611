/**
 * JSON bodies: `application/json` only, at most 2 MiB counted while reading (the body is
 * never buffered past the limit), complete within a deadline (a slow body is a held
 * connection), parsed to a value. Every failure is 400 (`invalid_request`, or
 * `upload_timeout` with `connection: close` for a body that came too slowly), except a client that
 * closed the connection before its body ended: 499 `client_closed`.
 */
import { clientClosed, invalidRequest } from "../errors.ts";
import { isJsonContentType } from "../util/content_type.ts";
import { checkJsonDepth } from "./json_limits.ts";
import { JSON_BODY_LIMIT, readLimitedBytes } from "../request_body.ts";

const decoder = new TextDecoder();

export async function readJsonBody(
  request: Request,
  options: { limit?: number; deadlineMs?: number } = {},
): Promise<unknown> {
  return (await readJsonBodyText(request, options)).value;
}

/** `readJsonBody`, with the body's text as received (for byte-stable forwarding). */
export async function readJsonBodyText(
  request: Request,
  options: { limit?: number; deadlineMs?: number } = {},
): Promise<{ value: unknown; text: string }> {
  const limit = options.limit ?? JSON_BODY_LIMIT;
  if (!isJsonContentType(request.headers.get("content-type"))) {
    await request.body?.cancel().catch(() => {});
    throw invalidRequest("The request body must be JSON with 'Content-Type: application/json'.");
  }
  let bytes: Uint8Array;
  try {
    bytes = await readLimitedBytes(
      request,
      limit,
      () => invalidRequest(`The request body is larger than ${limit} bytes (2 MiB).`),
      options.deadlineMs,
    );
  } catch (error) {
    // The connection closed before the body ended (Deno: BadResource; the request's signal does
    // not abort): the client left, so the answer — and the telemetry's count of it — is 499.
    if (!(error instanceof Deno.errors.BadResource)) throw error;
    throw clientClosed();
  }
  if (bytes.length === 0) throw invalidRequest("The request body is empty; send a JSON object.");
  let value: unknown;
  const text = decoder.decode(bytes);
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest("The request body is not valid JSON.");
  }
  checkJsonDepth(value);
  return { value, text };
}
