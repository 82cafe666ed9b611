/**
 * The one error type of the gateway. Everything that answers a client with an error throws
 * a GatewayError; `app.onError` renders it as the spec's error object.
 */
export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "insufficient_quota"
  | "not_found_error"
  | "rate_limit_error"
  | "upstream_error"
  | "server_error"
  | "service_unavailable";

export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: ErrorType;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  /** A provider's own error body, returned unchanged (passthrough 4xx). */
  readonly rawBody: string | undefined;
  /** True when the error stands for an upstream's answer (the request reached a provider). */
  readonly fromUpstream: boolean;

  constructor(
    status: number,
    code: string,
    message: string,
    options: {
      type?: ErrorType;
      param?: string;
      headers?: Record<string, string>;
      rawBody?: string;
      fromUpstream?: boolean;
    } = {},
  ) {
    super(message);
    this.name = "GatewayError";
    this.status = status;
    this.code = code;
    this.type = options.type ?? defaultType(status);
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.rawBody = options.rawBody;
    this.fromUpstream = options.fromUpstream ?? false;
  }

  toJSON(): { error: { message: string; type: string; code: string; param?: string } } {
    return {
      error: {
        message: this.message,
        type: this.type,
        code: this.code,
        ...(this.param === undefined ? {} : { param: this.param }),
      },
    };
  }

  toResponse(extraHeaders: Record<string, string> = {}): Response {
    return new Response(this.rawBody ?? JSON.stringify(this.toJSON()), {
      status: this.status,
      headers: { "content-type": "application/json", ...this.headers, ...extraHeaders },
    });
  }
}

function defaultType(status: number): ErrorType {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "insufficient_quota";
    case 404:
      return "not_found_error";
    case 429:
      return "rate_limit_error";
    case 502:
      return "upstream_error";
    case 503:
      return "service_unavailable";
    default:
      return "server_error";
  }
}

/** 400 `invalid_request`. */
export const invalidRequest = (message: string, param?: string) =>
  new GatewayError(400, "invalid_request", message, param === undefined ? {} : { param });

/** 400 naming the refused field in both `code` and `param` (rule 7 and friends). */
export const refusedField = (field: string, message: string) =>
  new GatewayError(400, field, message, { param: field });

export const unauthorized = () =>
  new GatewayError(
    401,
    "invalid_api_key",
    "Invalid or revoked API key; send 'Authorization: Bearer sk-ex-…' with an active key.",
  );

/** The key's expiry has passed (a set expiry, or the end of a rotation's grace period). */
export const expiredApiKey = (expiresAt: string) =>
  new GatewayError(
    401,
    "api_key_expired",
    `This API key expired at ${expiresAt}; use the key that replaced it or create a new one.`,
  );

export const missingApiKey = () =>
  new GatewayError(
    401,
    "missing_api_key",
    "Missing 'Authorization' header; send 'Authorization: Bearer <API key>'.",
  );

/** 404 for an unknown or disabled model; `suggestion` is a full catalog id the client may mean. */
export const modelNotFound = (id: string, suggestion?: string) =>
  new GatewayError(
    404,
    "model_not_found",
    `Model '${id}' does not exist or is not available.` +
      (suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`) +
      " Model ids are '<provider>/<model>'; GET /v1/models lists them.",
    { param: "model" },
  );

/** A model of another kind than the endpoint serves. */
export const wrongModelKind = (id: string, kind: string, wanted: string) =>
  new GatewayError(
    400,
    "model_kind_mismatch",
    `Model '${id}' is ${article(kind)} ${kind} model; this endpoint needs ${
      article(wanted)
    } ${wanted} model.`,
    { param: "model" },
  );

/** 405 on a known path: `Allow` names the methods it takes. */
export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]) =>
  new GatewayError(
    405,
    "method_not_allowed",
    `${method} is not allowed on ${path}; use ${allowed.join(" or ")} ${path}.`,
    { type: "invalid_request_error", headers: { allow: allowed.join(", ") } },
  );

function article(word: string): "a" | "an" {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

export const internalError = () =>
  new GatewayError(500, "internal_error", "The gateway failed to handle the request.");

/** The client left before its answer: 499, the status nginx made common for it. */
export const clientClosed = () =>
  new GatewayError(499, "client_closed", "The client closed the request.");
