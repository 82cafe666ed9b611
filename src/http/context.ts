/** What middleware hands to route handlers (Hono context variables). */
import type { ApiKeyRecord } from "../state/records.ts";

export interface RequestState {
  requestId: string;
  startedAt: number;
  apiKey: ApiKeyRecord;
}

export type AppEnv = { Variables: { state: RequestState } };
