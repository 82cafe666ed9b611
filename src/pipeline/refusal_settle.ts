/**
 * A policy refusal (policy/refusal_record.ts) settled as request metadata: no model, so no
 * price and cost 0; no served model, no provider, no usage; the status the client got and what
 * refused it. Written like every record (one commit with the day's aggregates), so the
 * organization's request listing and the dashboard show what its policy refused.
 */
import type { Settler } from "../billing/settle.ts";
import { PlanRefusal, type Refusal } from "../policy/refusal_record.ts";

/**
 * What planning (or a check it deferred) threw, as the client gets it: a `PlanRefusal`'s
 * record is settled first (before the gate looks whether anything settled), its error returned.
 */
export function refusalSettled(settler: Pick<Settler, "settle">, thrown: unknown): unknown {
  if (!(thrown instanceof PlanRefusal)) return thrown;
  settleRefusal(settler, thrown.record);
  return thrown.error;
}

function settleRefusal(settler: Pick<Settler, "settle">, refusal: Refusal): void {
  void settler.settle({
    id: refusal.requestId,
    startedAt: refusal.startedAt,
    org: refusal.org,
    keyId: refusal.keyId,
    user: refusal.user,
    endpoint: refusal.endpoint,
    requestedModel: refusal.requestedModel,
    model: undefined,
    servedModel: undefined,
    provider: undefined,
    status: refusal.status,
    errorCode: refusal.errorCode,
    stream: refusal.stream,
    fallbacks: 0,
    estimated: false,
    ...(refusal.guardrail === undefined ? {} : { guardrail: refusal.guardrail }),
    ...(refusal.policyRefusal === undefined ? {} : { policyRefusal: refusal.policyRefusal }),
  }, refusal.trace);
}
