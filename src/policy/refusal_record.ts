/**
 * What a policy refusal leaves behind. A request the organization's policy refuses before any
 * upstream call (403 `policy_forbids_model`, 400 `prompt_injection_detected`, 503
 * `guardrail_unavailable`) is not billed, but it leaves request metadata like any request (the
 * spec: "per request it keeps only metadata … HTTP status, requested model and served model,
 * provider, API key … and the computed cost"): its status, the model asked for, no served
 * model, no provider, no usage, cost 0, and what refused it — the guardrail's note (rule and
 * message index, never the text) or the policy's reasons. Planning writes nothing: a refusal
 * travels as a `PlanRefusal` (the client's error and its record) and the pipeline settles the
 * record; this layer only says what it holds.
 */
import type { GatewayError } from "../errors.ts";
import type { GuardrailNote, RequestNotes } from "./request_notes.ts";
import type { RequestTrace } from "../telemetry/telemetry.ts";
import type { EndpointName } from "../billed_endpoints.ts";

export interface Refusal {
  requestId: string;
  startedAt: number;
  org: string;
  keyId: string;
  user: string | undefined;
  endpoint: EndpointName;
  requestedModel: string;
  status: number;
  /** The error object's `code` the client got. */
  errorCode: string;
  stream: boolean;
  /** The guardrail's note (block, or `error` when the scan failed in block mode). */
  guardrail?: GuardrailNote;
  /** The organization policy's reasons, as the 403 names them. */
  policyRefusal?: string;
  /** The request's telemetry record: its settle counts the request (the gate then does not). */
  trace?: RequestTrace;
}

/**
 * A refusal decided while planning, or by a check planning deferred: `error` is what the
 * client gets (thrown on as it is), `record` the metadata row the pipeline writes for it.
 */
export class PlanRefusal extends Error {
  constructor(readonly error: unknown, readonly record: Refusal) {
    super("A request refused while planning.", { cause: error });
  }
}

/** What a refusal reads of the plan's input (typed by its fields). */
export interface RefusalPlanInput {
  endpoint: EndpointName;
  request: unknown;
  caller: {
    requestId: string;
    startedAt: number;
    org: string;
    keyId: string;
    notes?: RequestNotes;
    trace?: RequestTrace;
  };
  model: { id: string };
}

export function refusalOf(
  input: RefusalPlanInput,
  error: GatewayError,
  details: { requestedModel?: string; policyRefusal?: string } = {},
): Refusal {
  const request = (input.request ?? {}) as { user?: unknown; stream?: unknown };
  const guardrail = input.caller.notes?.guardrail;
  return {
    requestId: input.caller.requestId,
    startedAt: input.caller.startedAt,
    org: input.caller.org,
    keyId: input.caller.keyId,
    user: typeof request.user === "string" ? request.user : undefined,
    endpoint: input.endpoint,
    requestedModel: details.requestedModel ?? input.model.id,
    status: error.status,
    errorCode: error.code,
    stream: request.stream === true,
    ...(guardrail !== undefined && error.code !== "policy_forbids_model" ? { guardrail } : {}),
    ...(details.policyRefusal === undefined ? {} : { policyRefusal: details.policyRefusal }),
    ...(input.caller.trace === undefined ? {} : { trace: input.caller.trace }),
  };
}
