/**
 * Bedrock error answers and exception frames → UpstreamFailure. The error name comes from
 * `x-amzn-ErrorType` (text before `:`), else the body's `__type` (after `#`) or `code`.
 * ValidationException keeps the provider's message (the gateway renders it as 400).
 */
import { parseJson } from "../parse_json.ts";
import { kindForStatus, UpstreamFailure, type UpstreamFailureKind } from "../upstream_failure.ts";
import { BedrockErrorBody } from "./wire.ts";

const MAX_MESSAGE = 500;

const utf8 = new TextDecoder();

export function bedrockHttpFailure(
  status: number,
  errorTypeHeader: string | null,
  bodyText: string,
): UpstreamFailure {
  const parsed = BedrockErrorBody.safeParse(parseJson(bodyText));
  const body = parsed.success ? parsed.data : undefined;
  const name = errorName(errorTypeHeader ?? body?.__type ?? body?.code ?? undefined);
  const message = body?.message ?? body?.Message ?? undefined;
  return failure(kindForBedrockError(name, status), status, name, message);
}

/** A `:message-type: exception` frame inside a 200 stream. */
export function bedrockExceptionFailure(
  exceptionType: string,
  payload: Uint8Array,
): UpstreamFailure {
  const name = exceptionType.charAt(0).toUpperCase() + exceptionType.slice(1);
  const parsed = BedrockErrorBody.safeParse(parseJson(utf8.decode(payload)));
  const message = parsed.success
    ? parsed.data.message ?? parsed.data.Message ?? undefined
    : undefined;
  return failure(kindForBedrockError(name, 500), undefined, name, message);
}

export function kindForBedrockError(name: string | undefined, status: number): UpstreamFailureKind {
  switch (name) {
    case "ThrottlingException":
    case "ServiceQuotaExceededException":
    case "TooManyRequestsException":
      return "rate_limited";
    case "ServiceUnavailableException":
    case "ModelNotReadyException":
    case "InternalServerException":
    case "ModelTimeoutException":
    case "ModelErrorException":
    case "ModelStreamErrorException":
      return "unavailable";
    case "AccessDeniedException":
    case "UnrecognizedClientException":
    case "InvalidSignatureException":
    case "ExpiredTokenException":
    case "MissingAuthenticationTokenException":
    case "IncompleteSignatureException":
      return "auth";
    case "ValidationException":
      return "invalid_request";
    default:
      return kindForStatus(status);
  }
}

function failure(
  kind: UpstreamFailureKind,
  status: number | undefined,
  name: string | undefined,
  message: string | undefined,
): UpstreamFailure {
  const text = kind === "invalid_request" && message
    ? message.slice(0, MAX_MESSAGE)
    : `Bedrock answered ${status ?? "with an exception"}${name ? ` ('${name}')` : ""}.`;
  return new UpstreamFailure(kind, text, status === undefined ? {} : { status });
}

function errorName(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  const beforeColon = raw.split(":")[0] ?? raw;
  return beforeColon.includes("#")
    ? beforeColon.slice(beforeColon.lastIndexOf("#") + 1)
    : beforeColon;
}
