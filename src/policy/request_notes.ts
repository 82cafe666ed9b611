/**
 * What planning learned about a request that the answer and its metadata must carry: the
 * guardrail's flag (or block) note and the headers that go with it. One mutable object per
 * request, created with the caller; the guardrail check fills it, the HTTP layer reads the
 * headers, settling reads the metadata. Never holds request content.
 */
import type { GuardrailMetadata } from "../state/records.ts";

export type GuardrailNote = GuardrailMetadata;

export interface RequestNotes {
  headers: Record<string, string>;
  guardrail?: GuardrailNote;
}

export function newRequestNotes(): RequestNotes {
  return { headers: {} };
}
