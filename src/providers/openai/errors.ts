/** Upstream HTTP errors of `openai`-dialect providers → UpstreamFailure. */
import {
  hasErrorShape,
  kindForStatus,
  parseRetryAfter,
  UpstreamFailure,
} from "../upstream_failure.ts";

function providerMessage(parsed: unknown): string | undefined {
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const p = parsed as { message?: unknown; error?: unknown; detail?: unknown };
  if (typeof p.message === "string") return p.message;
  if (typeof p.error === "string") return p.error;
  if (typeof p.message === "object" && p.message !== null) return JSON.stringify(p.message);
  if (typeof p.detail === "string") return p.detail;
  return undefined;
}

type ErrorShape = { error: { message: string; type?: unknown; code?: unknown } };

/**
 * The provider's own body, except that `code` and `type` must be strings in the spec's Error
 * object: a `null` or missing one (some providers send `code: null`) is filled in.
 */
function withStringCodes(body: ErrorShape, text: string): string {
  const error = body.error;
  if (typeof error.code === "string" && typeof error.type === "string") return text;
  return JSON.stringify({
    ...body,
    error: {
      ...error,
      type: typeof error.type === "string" ? error.type : "invalid_request_error",
      code: typeof error.code === "string" ? error.code : "upstream_invalid_request",
    },
  });
}

/** A non-2xx answer (its capped body) as an UpstreamFailure (rule 4, passthrough 4xx). */
export function failureFromResponse(response: Response, text: string): UpstreamFailure {
  const status = response.status;
  const kind = kindForStatus(status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (kind === "invalid_request") {
    if (hasErrorShape(parsed)) {
      return new UpstreamFailure("passthrough", "The provider rejected the request.", {
        status,
        body: withStringCodes(parsed as ErrorShape, text),
      });
    }
    // Capped like the other adapters: a provider's validation text can be long.
    const message = providerMessage(parsed)?.slice(0, 500);
    return new UpstreamFailure(
      "invalid_request",
      message
        ? `The provider rejected the request: ${message}`
        : "The provider rejected the request.",
      { status },
    );
  }
  const retryAfterSeconds = parseRetryAfter(response.headers.get("retry-after"));
  return new UpstreamFailure(kind, `The provider answered HTTP ${status}.`, {
    status,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
}
