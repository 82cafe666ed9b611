/**
 * What a policy change's control-plane audit entry (`policy.changed`) says of the new policy,
 * the same whether the dashboard or the admin CLI made it: the settings, never a model list or
 * a secret (an allow-list is its length, the remote classifier its model and settings).
 */
import type { AuditEntry } from "../state/account_records.ts";
import type { KeyPolicy, OrgPolicy } from "../state/policy_store.ts";

export function orgPolicyAuditDetail(next: OrgPolicy): AuditEntry["detail"] {
  return {
    sovereignty: next.sovereignty,
    blocked_providers: next.blocked_providers.join(",") || null,
    zdr_only: next.zdr_only,
    allowed_models: next.allowed_models === null ? "all" : next.allowed_models.length,
    guardrail: next.guardrail,
    guardrail_remote: next.guardrail_remote
      ? `${next.guardrail_remote.model} ${next.guardrail_remote.timeout_ms} ms ${next.guardrail_remote.on_error}`
      : null,
  };
}

export function keyPolicyAuditDetail(keyId: string, next: KeyPolicy): AuditEntry["detail"] {
  return {
    key: keyId,
    sovereignty: next.sovereignty ?? null,
    blocked_providers: next.blocked_providers?.join(",") ?? null,
    zdr_only: next.zdr_only ?? null,
    allowed_models: next.allowed_models?.length ?? null,
    guardrail: next.guardrail ?? null,
  };
}
