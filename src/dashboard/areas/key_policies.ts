/**
 * A key's narrowing of its organization's policy in the dashboard ("a key may be
 * narrower than its org, never wider"), with the rules `deno task admin policy set --key` uses
 * (`policy/policy_edit.ts`): strict_only, more blocked providers, zdr_only, a smaller allow-list
 * (never an empty one), a stronger guardrail. A change names only the fields it changes;
 * `sovereignty: "any"`, `zdr_only: false`, `allowed_models: null` and `guardrail: "off"` drop that
 * narrowing. Owners and admins change it (stored with the policy's audit trail, and as
 * `policy.changed` in the control-plane log); every member reads it. Saving or reading a key policy that leaves the organization's remote guardrail
 * classifier no route is allowed, with a warning (policy/key_remote_warning.ts).
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { audit } from "../audit.ts";
import { notFound } from "../errors.ts";
import type { KeyPolicy, OrgPolicy } from "../../state/policy_store.ts";
import { effectivePolicy } from "../../policy/effective_policy.ts";
import { allowedModelIds } from "../../policy/route_rules.ts";
import { keyRemoteWarning } from "../../policy/key_remote_warning.ts";
import { editKeyPolicy, type PolicyEdit } from "../../policy/policy_edit.ts";
import { keyPolicyAuditDetail } from "../../policy/policy_audit.ts";

/** The fields given change (each its whole new value); the rules: `policy/policy_edit.ts`. */
export type KeyPolicyChange = PolicyEdit;

export interface KeyPolicyView {
  key_id: string;
  /** What the key narrows (empty: it follows its organization). */
  policy: KeyPolicy;
  /** Active models the key's effective policy (organization ∩ key) leaves a route. */
  models_allowed: string[];
  /** Allowed but worth knowing (a classifier with no route for this key). */
  warnings: string[];
}

async function ownKey(deps: DashboardDeps, access: OrgAccess, keyId: string): Promise<void> {
  const keys = await deps.store.listApiKeys(access.org.id);
  if (!keys.some((k) => k.id === keyId)) throw notFound("API key");
}

export async function keyPolicyView(
  deps: DashboardDeps,
  access: OrgAccess,
  keyId: string,
): Promise<KeyPolicyView> {
  await ownKey(deps, access, keyId);
  const [org, key] = await Promise.all([
    deps.store.getOrgPolicy(access.org.id),
    deps.store.getKeyPolicy(keyId),
  ]);
  const catalog = deps.catalog?.();
  const warning = keyRemoteWarning(catalog, org, keyId, key);
  return {
    key_id: keyId,
    policy: key ?? {},
    models_allowed: catalog ? allowedModelIds(catalog, effectivePolicy(org, key)) : [],
    warnings: warning ? [warning] : [],
  };
}

export async function updateKeyPolicy(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  keyId: string,
  change: KeyPolicyChange,
): Promise<KeyPolicyView> {
  requirePermission(access, "manage_policies", "changing a key's policy");
  await ownKey(deps, access, keyId);
  const current = await deps.store.getKeyPolicy(keyId) ?? {};
  const next = editKeyPolicy(current, change, deps.catalog?.());
  await deps.store.putKeyPolicy(access.org.id, keyId, next, `dashboard:${viewer.user.email}`);
  await audit(
    deps,
    access.org.id,
    viewer.user.email,
    "policy.changed",
    keyId,
    keyPolicyAuditDetail(keyId, next),
  );
  return await keyPolicyView(deps, access, keyId);
}

export interface KeyPolicyRow extends KeyPolicyView {
  name: string | null;
  prefix: string;
}

/**
 * Every active key of the organization with its narrowing and warnings (the policies page's table,
 * under the organization's policy `org`, read by the caller): a key whose narrowing leaves the
 * remote classifier no route shows its warning here, also when it was the organization's later
 * change that made it so. One read of each key's policy.
 */
export async function keyPolicies(
  deps: DashboardDeps,
  access: OrgAccess,
  org: OrgPolicy | undefined,
): Promise<KeyPolicyRow[]> {
  const keys = await deps.store.listApiKeys(access.org.id);
  const catalog = deps.catalog?.();
  const active = keys.filter((k) => !k.revoked).sort((a, b) => a.created.localeCompare(b.created));
  return await Promise.all(active.map(async (k) => {
    const key = await deps.store.getKeyPolicy(k.id);
    const warning = keyRemoteWarning(catalog, org, k.id, key);
    return {
      key_id: k.id,
      name: k.name,
      prefix: k.prefix,
      policy: key ?? {},
      models_allowed: catalog ? allowedModelIds(catalog, effectivePolicy(org, key)) : [],
      warnings: warning ? [warning] : [],
    };
  }));
}
