/**
 * Organization policies: the store area. Semantics every backend keeps:
 *
 * - One `OrgPolicy` per organization. Absent means the default (`DEFAULT_ORG_POLICY`: any
 *   sovereignty, nothing blocked, no ZDR requirement, every model, guardrail off, no remote
 *   guardrail layer). `guardrail_remote` absent (documents written before it existed) means
 *   null: readers treat both alike, so no backend needs a migration for it.
 * - One optional `KeyPolicy` per API key: it can only narrow its organization's policy (the
 *   gateway intersects them; the store keeps what was set, unvalidated against the org).
 * - `putOrgPolicy` / `putKeyPolicy` replace the whole stored value and append one audit entry
 *   in the same commit: `{ id, at, org, key_id, actor, before, after }`, `id` time-ordered
 *   (`sequentialId("pa_")`), `before` the previous value or null. `putKeyPolicy(…, null)`
 *   removes the key's policy (audited with `after: null`).
 * - `listPolicyAudit(org, limit)` returns entries newest first.
 * - Values are plain JSON (no bigint, no Date): a backend may store them as JSON documents.
 * The gateway caches reads for at most 30 s, so a change takes effect within 30 s.
 */

export type Sovereignty = "any" | "strict_only";
export type GuardrailMode = "off" | "flag" | "block";

export interface OrgPolicy {
  sovereignty: Sovereignty;
  /** Provider ids whose routes are never used. */
  blocked_providers: string[];
  /** Only providers whose catalog entry has `"zdr": true`. */
  zdr_only: boolean;
  /** Model ids the organization may use; null: every model. */
  allowed_models: string[] | null;
  guardrail: GuardrailMode;
  /**
   * The guardrail's optional remote layer (a catalog `moderation` model asked about borderline
   * local verdicts); null or absent: off (the default).
   */
  guardrail_remote?: GuardrailRemote | null;
}

export interface GuardrailRemote {
  /** A catalog model of kind `moderation`, e.g. `mistral/mistral-moderation-2603`. */
  model: string;
  /** How long the gateway waits for its answer. */
  timeout_ms: number;
  /** No answer in time, or an error: `open` serves on the local verdict, `closed` refuses (503). */
  on_error: "open" | "closed";
}

/** A key's narrowing of its organization's policy (every field optional). */
export interface KeyPolicy {
  sovereignty?: "strict_only";
  blocked_providers?: string[];
  zdr_only?: true;
  allowed_models?: string[];
  guardrail?: "flag" | "block";
}

export interface PolicyAuditEntry {
  id: string;
  /** ISO time of the change. */
  at: string;
  org: string;
  /** Set when a key's policy changed. */
  key_id: string | null;
  /** Who changed it: `cli`, `dashboard:<user id>`, … */
  actor: string;
  before: OrgPolicy | KeyPolicy | null;
  after: OrgPolicy | KeyPolicy | null;
}

export const DEFAULT_ORG_POLICY: OrgPolicy = {
  sovereignty: "any",
  blocked_providers: [],
  zdr_only: false,
  allowed_models: null,
  guardrail: "off",
  guardrail_remote: null,
};

export interface PolicyStore {
  getOrgPolicy(orgId: string): Promise<OrgPolicy | undefined>;
  putOrgPolicy(orgId: string, policy: OrgPolicy, actor: string): Promise<PolicyAuditEntry>;
  getKeyPolicy(keyId: string): Promise<KeyPolicy | undefined>;
  putKeyPolicy(
    orgId: string,
    keyId: string,
    policy: KeyPolicy | null,
    actor: string,
  ): Promise<PolicyAuditEntry>;
  listPolicyAudit(orgId: string, limit: number): Promise<PolicyAuditEntry[]>;
}
