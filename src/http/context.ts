/** What middleware hands to route handlers (Hono context variables). */
import type { ApiKeyRecord } from "../state/records.ts";
import type { Caller } from "../routing/route_plan.ts";

export interface RequestState {
  requestId: string;
  startedAt: number;
  apiKey: ApiKeyRecord;
}

export type AppEnv = { Variables: { state: RequestState } };

/** The pipeline's view of who is asking. */
export function callerOf(state: RequestState): Caller {
  return {
    requestId: state.requestId,
    startedAt: state.startedAt,
    org: state.apiKey.org,
    keyId: state.apiKey.id,
  };
}
