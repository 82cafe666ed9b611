/** Response builders shared by every endpoint: JSON, the OpenAI error shape, failure modes. */

import type { Behaviour } from "./behaviour.ts";
import { waitForAbort } from "./timing.ts";

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "server_error";

export function jsonResponse(body: unknown, requestId: string, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": requestId },
  });
}

/** `{"error":{"message","type","param","code"}}` as OpenAI sends it. */
export function errorResponse(
  status: number,
  message: string,
  requestId: string,
  options: { type?: ErrorType; code?: string | null; param?: string | null } = {},
): Response {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-request-id": requestId,
  };
  if (status === 429) headers["retry-after"] = "1";
  const error = {
    message,
    type: options.type ?? typeForStatus(status),
    param: options.param ?? null,
    code: options.code ?? null,
  };
  return new Response(JSON.stringify({ error }), { status, headers });
}

export const invalidRequest = (message: string, requestId: string, param?: string) =>
  errorResponse(400, message, requestId, { param: param ?? null });

/** A body that failed its schema: 400 naming the first bad field, as OpenAI answers. */
export function invalidBody(
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  requestId: string,
): Response {
  const issue = issues[0];
  const param = issue?.path.map(String).join(".") || "body";
  return invalidRequest(
    `Invalid '${param}': ${issue?.message ?? "invalid body"}.`,
    requestId,
    param,
  );
}

/** `fail-<status>` and `fail-<status>-raw`. */
export function failureResponse(status: number, raw: boolean, requestId: string): Response {
  if (raw) {
    const headers: Record<string, string> = {
      "content-type": "text/html",
      "x-request-id": requestId,
    };
    if (status === 429) headers["retry-after"] = "1";
    const page = `<html>\r\n<head><title>${status} Error</title></head>\r\n<body>\r\n` +
      `<center><h1>${status} Error</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
    return new Response(page, { status, headers });
  }
  return errorResponse(status, failureMessage(status), requestId, { code: codeForStatus(status) });
}

/**
 * Failure modes that replace a non-streamed answer: `fail-*`, `silent` (never answer until the
 * client leaves or the simulator closes) and `drop-after-*` (status line and headers, then the
 * connection is cut mid-body: Deno.serve cannot close a connection before the head is sent, so
 * a declared Content-Length is left unfulfilled instead).
 */
export async function interruptedResponse(
  behaviour: Behaviour,
  signal: () => AbortSignal,
  requestId: string,
): Promise<Response | undefined> {
  if (behaviour.fail !== undefined) {
    return failureResponse(behaviour.fail.status, behaviour.fail.raw, requestId);
  }
  if (behaviour.silentAfter !== undefined) {
    await waitForAbort(signal());
    return errorResponse(503, "The simulator is shutting down.", requestId);
  }
  if (behaviour.dropAfter !== undefined) return truncatedResponse('{"id":"', requestId);
  return undefined;
}

/** A response whose body ends before its declared length: the client sees a broken connection. */
export function truncatedResponse(prefix: string, requestId: string, declared?: number): Response {
  const bytes = new TextEncoder().encode(prefix);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/json",
      "content-length": String(Math.max(declared ?? 0, bytes.length + 1024)),
      "x-request-id": requestId,
    },
  });
}

function typeForStatus(status: number): ErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function codeForStatus(status: number): string | null {
  switch (status) {
    case 401:
      return "invalid_api_key";
    case 404:
      return "model_not_found";
    case 429:
      return "rate_limit_exceeded";
    case 503:
      return "server_is_overloaded";
    default:
      return null;
  }
}

function failureMessage(status: number): string {
  if (status === 429) return "Rate limit reached for requests. Please try again in 1s.";
  if (status === 503) return "The engine is currently overloaded, please try again later.";
  if (status >= 500) return "The server had an error while processing your request.";
  return `Simulated failure with status ${status}.`;
}
