/** What middleware hands to route handlers (Hono context variables). */
import type { ApiKeyRecord } from "../state/records.ts";
import type { Caller } from "../routing/route_plan.ts";
import type { RequestTrace } from "../telemetry/telemetry.ts";
import type { EffectivePolicy } from "../policy/effective_policy.ts";
import type { RequestNotes } from "../policy/request_notes.ts";
import type { RequestAdmission } from "../limits/admission.ts";

export interface RequestIdentity {
  requestId: string;
  startedAt: number;
}

/** Set for every request by the first middleware (`request_id.ts`). */
export interface RequestStart extends RequestIdentity {
  /** The answer a gated route built with every header on it (`http/answer.ts`). */
  answer?: Response;
  /** Whether that answer is an event stream. */
  answerStreams?: boolean;
}

/** Set by the gate for authenticated requests. */
export interface RequestState extends RequestIdentity {
  apiKey: ApiKeyRecord;
  trace: RequestTrace;
  /** The gate's rate-limit headers, for the answer (`http/answer.ts`). */
  rateHeaders: Record<string, string>;
  /** The key's effective organization policy (cached ≤ 30 s). */
  policy?: EffectivePolicy;
  /** Filled while the request is planned (guardrail flag); headers go on the answer. */
  notes?: RequestNotes;
  /** The credit hold before the first upstream call (and its release). */
  admission?: RequestAdmission;
  /** What the body named, once read (`refused_request.ts`): a refused request's row. */
  requested?: { model: string; user: string | undefined; stream: boolean };
}

export type AppEnv = { Variables: { request: RequestStart; state: RequestState } };

/** The pipeline's view of who is asking (optional fields assigned, not spread: no objects). */
export function callerOf(state: RequestState): Caller {
  const caller: Caller = {
    requestId: state.requestId,
    startedAt: state.startedAt,
    org: state.apiKey.org,
    keyId: state.apiKey.id,
    trace: state.trace,
  };
  if (state.policy) caller.policy = state.policy;
  if (state.notes) caller.notes = state.notes;
  if (state.admission) caller.admission = state.admission;
  return caller;
}
