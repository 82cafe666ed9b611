/**
 * jsonb keeps an object's keys in its own order (shortest first); request metadata comes back
 * in the contract's field order instead, so listings read the same on both backends. Fields
 * the contract does not list (added by later features) follow in their stored order.
 */
import { REQUEST_RECORD_FIELDS, type RequestRecord } from "../records.ts";

export function inContractOrder(stored: RequestRecord): RequestRecord {
  const source = stored as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of REQUEST_RECORD_FIELDS) if (field in source) out[field] = source[field];
  for (const [field, value] of Object.entries(source)) if (!(field in out)) out[field] = value;
  return out as unknown as RequestRecord;
}
