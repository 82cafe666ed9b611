/**
 * Error answers of Anthropic on Vertex → UpstreamFailure. Two shapes arrive: Anthropic's
 * `{type:"error", error:{type, message}}` and Google's `{error:{code, message, status}}`
 * (sometimes wrapped in a one-element array). Validation errors keep the provider's message
 * (rendered as 400 by the gateway); everything else gets a neutral message.
 */
import { parseJson } from "../parse_json.ts";
import { kindForStatus, UpstreamFailure, type UpstreamFailureKind } from "../upstream_failure.ts";
import { AnthropicErrorBody, GoogleErrorBody } from "./wire.ts";

const MAX_MESSAGE = 500;

export function anthropicHttpFailure(status: number, bodyText: string): UpstreamFailure {
  const body = parseJson(bodyText);
  const first = Array.isArray(body) ? body[0] : body;
  const anthropic = AnthropicErrorBody.safeParse(first);
  if (anthropic.success && anthropic.data.type === "error") {
    const type = anthropic.data.error.type ?? undefined;
    return failure(kindForAnthropicError(type, status), status, type, anthropic.data.error.message);
  }
  const google = GoogleErrorBody.safeParse(first);
  if (google.success) {
    const kind = google.data.error.status === "RESOURCE_EXHAUSTED"
      ? "rate_limited"
      : kindForStatus(status);
    return failure(kind, status, google.data.error.status ?? undefined, google.data.error.message);
  }
  return failure(kindForStatus(status), status, undefined, undefined);
}

/** An `error` event inside a 200 stream. */
export function anthropicStreamFailure(type: string | null | undefined): UpstreamFailure {
  const kind = kindForAnthropicError(type ?? undefined, 500);
  return new UpstreamFailure(
    kind === "invalid_request" ? "unavailable" : kind,
    `The provider's stream failed${type ? ` ('${type}')` : ""}.`,
  );
}

export function kindForAnthropicError(
  type: string | undefined,
  status: number,
): UpstreamFailureKind {
  switch (type) {
    case "overloaded_error":
    case "api_error":
    case "timeout_error":
      return "unavailable";
    case "rate_limit_error":
      return "rate_limited";
    case "authentication_error":
    case "permission_error":
      return "auth";
    case "invalid_request_error":
    case "not_found_error":
    case "request_too_large":
      return status >= 500 ? "unavailable" : "invalid_request";
    default:
      return kindForStatus(status);
  }
}

function failure(
  kind: UpstreamFailureKind,
  status: number,
  type: string | undefined,
  message: string | null | undefined,
): UpstreamFailure {
  const text = kind === "invalid_request" && message
    ? message.slice(0, MAX_MESSAGE)
    : `The provider answered ${status}${type ? ` ('${type}')` : ""}.`;
  return new UpstreamFailure(kind, text, { status });
}
