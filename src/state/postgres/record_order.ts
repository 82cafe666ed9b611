/**
 * jsonb keeps an object's keys in its own order (shortest first); request metadata comes back
 * in the contract's field order instead, so listings read the same on both backends. Fields
 * the contract does not list (added by later features) follow in their stored order.
 */
import type { RequestRecord } from "../records.ts";

const FIELDS: readonly (keyof RequestRecord)[] = [
  "id",
  "created",
  "org",
  "key_id",
  "user",
  "endpoint",
  "requested_model",
  "served_model",
  "provider",
  "status",
  "latency_ms",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "audio_seconds",
  "characters",
  "cost_micro_eur",
  "estimated",
  "stream",
  "fallbacks",
];

export function inContractOrder(stored: RequestRecord): RequestRecord {
  const source = stored as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) if (field in source) out[field] = source[field];
  for (const [field, value] of Object.entries(source)) if (!(field in out)) out[field] = value;
  return out as unknown as RequestRecord;
}
