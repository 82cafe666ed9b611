/**
 * What a request refused after authentication leaves in the request log
 * (`billing/refused_rows.ts`): the fields it said of itself, as far as its body was read
 * (`noteRequested`, never the body), and the refusal's status and error code.
 */
import { GatewayError } from "../errors.ts";
import type { RequestRecord } from "../state/records.ts";
import type { RefusedRequest } from "../billing/refused_rows.ts";
import type { RequestState } from "./context.ts";
import { type EndpointName, isEndpointName } from "../billed_endpoints.ts";

/** The longest requested model kept of a refused request (its body was not validated). */
const MODEL_MAX = 256;

/** The endpoint of a telemetry label when its requests have metadata rows (not `models`). */
export function rowEndpointOf(label: string): EndpointName | undefined {
  return isEndpointName(label) ? label : undefined;
}

/** Notes the model, end-user id and stream flag a body names, for its row should it be refused. */
export function noteRequested(
  state: RequestState,
  body: unknown,
): void {
  if (body === null || typeof body !== "object") return;
  const { model, user, stream } = body as Record<string, unknown>;
  state.requested = {
    model: typeof model === "string" ? model.slice(0, MODEL_MAX) : "",
    user: typeof user === "string" ? user : undefined,
    stream: stream === true,
  };
}

/** A refusal the client got after authentication: 4xx but 401 (before it) and 499 (it left). */
export function isRefusal(error: unknown): error is GatewayError {
  return error instanceof GatewayError && error.status >= 400 && error.status < 500 &&
    error.status !== 401 && error.status !== 499;
}

export function refusedRequestOf(
  who: { requestId: string; startedAt: number; org: string; keyId: string },
  endpoint: RequestRecord["endpoint"],
  requested: RequestState["requested"],
  error: GatewayError,
  endedAt: number,
): RefusedRequest {
  return {
    requestId: who.requestId,
    startedAt: who.startedAt,
    endedAt,
    org: who.org,
    keyId: who.keyId,
    endpoint,
    requestedModel: requested?.model ?? "",
    user: requested?.user,
    stream: requested?.stream ?? false,
    status: error.status,
    errorCode: error.code,
  };
}
