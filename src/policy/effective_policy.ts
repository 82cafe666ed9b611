/**
 * The policy that applies to one request: the organization's, narrowed by its key's (a key
 * may be stricter, never looser). Each rule remembers whether the organization or the key
 * imposed it, so a refusal names its source.
 */
import {
  DEFAULT_ORG_POLICY,
  type GuardrailMode,
  type GuardrailRemote,
  type KeyPolicy,
  type OrgPolicy,
} from "../state/policy_store.ts";

export type PolicySource = "organization" | "key";

export interface EffectivePolicy {
  strictOnly: PolicySource | null;
  /** provider id → who blocked it */
  blockedProviders: ReadonlyMap<string, PolicySource>;
  zdrOnly: PolicySource | null;
  /** null: every model */
  allowedModels: ReadonlySet<string> | null;
  allowedModelsSource: PolicySource | null;
  guardrail: GuardrailMode;
  /** The organization's remote guardrail layer (organization-level only; keys cannot set it). */
  guardrailRemote: GuardrailRemote | null;
}

const GUARDRAIL_RANK: Record<GuardrailMode, number> = { off: 0, flag: 1, block: 2 };

export function effectivePolicy(
  org: OrgPolicy | undefined,
  key: KeyPolicy | undefined,
): EffectivePolicy {
  const o = org ?? DEFAULT_ORG_POLICY;
  const blocked = new Map<string, PolicySource>();
  for (const p of o.blocked_providers) blocked.set(p, "organization");
  for (const p of key?.blocked_providers ?? []) if (!blocked.has(p)) blocked.set(p, "key");
  let allowed: Set<string> | null = o.allowed_models === null ? null : new Set(o.allowed_models);
  let allowedSource: PolicySource | null = allowed === null ? null : "organization";
  if (key?.allowed_models !== undefined) {
    const narrowed = key.allowed_models.filter((m) => allowed === null || allowed.has(m));
    allowed = new Set(narrowed);
    allowedSource = "key";
  }
  const keyGuardrail = key?.guardrail ?? "off";
  return {
    strictOnly: o.sovereignty === "strict_only"
      ? "organization"
      : key?.sovereignty === "strict_only"
      ? "key"
      : null,
    blockedProviders: blocked,
    zdrOnly: o.zdr_only ? "organization" : key?.zdr_only ? "key" : null,
    allowedModels: allowed,
    allowedModelsSource: allowedSource,
    guardrail: GUARDRAIL_RANK[keyGuardrail] > GUARDRAIL_RANK[o.guardrail]
      ? keyGuardrail
      : o.guardrail,
    guardrailRemote: o.guardrail_remote ?? null,
  };
}

/** No restriction at all (the default policy, and what a caller without a policy gets). */
export const OPEN_POLICY: EffectivePolicy = effectivePolicy(undefined, undefined);
