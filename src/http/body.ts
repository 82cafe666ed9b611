/**
 * JSON bodies: `application/json` only, at most 2 MiB counted while reading (the body is
 * never buffered past the limit), parsed to a value. Every failure is 400 `invalid_request`.
 */
import { invalidRequest } from "../errors.ts";
import { isJsonContentType } from "../content_type.ts";

export const JSON_BODY_LIMIT = 2 * 1024 * 1024;

export async function readLimitedBytes(
  request: Request,
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!request.body) return new Uint8Array(0);
  if (declared !== null) {
    // The length is declared and within the limit: one native read (HTTP/1.1 framing stops
    // the body at the declared length, so no more than the limit can arrive).
    return new Uint8Array(await request.arrayBuffer());
  }
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(value);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

const decoder = new TextDecoder();

export async function readJsonBody(request: Request, limit = JSON_BODY_LIMIT): Promise<unknown> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    await request.body?.cancel().catch(() => {});
    throw invalidRequest("The request body must be JSON with 'Content-Type: application/json'.");
  }
  const bytes = await readLimitedBytes(
    request,
    limit,
    () => invalidRequest(`The request body is larger than ${limit} bytes (2 MiB).`),
  );
  if (bytes.length === 0) throw invalidRequest("The request body is empty; send a JSON object.");
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    throw invalidRequest("The request body is not valid JSON.");
  }
}
