/**
 * Every upstream failure, normalised to one value. The fallback loop reads only
 * `retryable`; the final client error is derived from `kind`.
 */
export type UpstreamFailureKind =
  /** 429 or a provider's throttling error. */
  | "rate_limited"
  /** 5xx, overloaded, a connect error, a broken or silent stream. */
  | "unavailable"
  /** 401/403: the provider rejected the gateway's credentials. */
  | "auth"
  /** A 4xx in the spec's error shape: returned to the client unchanged. */
  | "passthrough"
  /** A provider validation error without the spec's shape: rendered as 400. */
  | "invalid_request";

export class UpstreamFailure extends Error {
  readonly kind: UpstreamFailureKind;
  /** The upstream HTTP status, where there was one. */
  readonly status: number | undefined;
  /** For `passthrough`: the provider's own body, returned unchanged. */
  readonly body: string | undefined;
  /** For `rate_limited`: the provider's `Retry-After`, in seconds, where it sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    kind: UpstreamFailureKind,
    message: string,
    options: { status?: number; body?: string; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UpstreamFailure";
    this.kind = kind;
    this.status = options.status;
    this.body = options.body;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get retryable(): boolean {
    return this.kind === "rate_limited" || this.kind === "unavailable" || this.kind === "auth";
  }
}

/** Classifies an HTTP status the way rule 4 does. */
export function kindForStatus(status: number): UpstreamFailureKind {
  if (status === 429) return "rate_limited";
  if (status === 401 || status === 403) return "auth";
  if (status >= 500) return "unavailable";
  return "invalid_request";
}

/** True when a parsed JSON body has the spec's error shape `{error: {message, …}}`. */
export function hasErrorShape(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === "object" && error !== null &&
    typeof (error as { message?: unknown }).message === "string";
}

/** Turns a failed fetch (no response) into an UpstreamFailure, keeping aborts as they are. */
export function connectFailure(error: unknown): UpstreamFailure {
  return new UpstreamFailure("unavailable", "Could not reach the provider.", { cause: error });
}

/** `Retry-After` as whole seconds (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim())
    ? Number(value.trim())
    : Math.ceil((Date.parse(value) - now) / 1000);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 3600) : undefined;
}

/**
 * A reason safe for logs: the gateway's own messages for the failure kinds it words itself;
 * for provider validation errors (whose text may quote the request) only the kind.
 */
export function loggableReason(error: unknown): string {
  if (error instanceof UpstreamFailure) {
    return error.kind === "invalid_request" || error.kind === "passthrough"
      ? `provider rejected the request (${error.kind})`
      : error.message;
  }
  return error instanceof Error ? error.name : "unknown";
}
