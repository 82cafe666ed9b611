/**
 * A key's narrowing of its organization's policy in the dashboard (issue 12: "a key may be
 * narrower than its org, never wider"), the same rules as `deno task admin policy set --key`:
 * strict_only, more blocked providers, zdr_only, a smaller allow-list, a stronger guardrail. A
 * change names only the fields it changes; `sovereignty: "any"`, `zdr_only: false`,
 * `allowed_models: null` and `guardrail: "off"` drop that narrowing. Owners and admins change it
 * (stored with the policy's audit trail, and as `policy.changed` in the control-plane log); every
 * member reads it. Saving or reading a key policy that leaves the organization's remote guardrail
 * classifier no route is allowed, with a warning (policy/key_remote_warning.ts).
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { audit } from "../audit.ts";
import { badInput, notFound } from "../errors.ts";
import type { KeyPolicy } from "../../state/policy_store.ts";
import { effectivePolicy } from "../../policy/effective_policy.ts";
import { allowedModelIds } from "../../policy/route_rules.ts";
import { keyRemoteWarning } from "../../policy/key_remote_warning.ts";

export interface KeyPolicyChange {
  sovereignty?: "any" | "strict_only" | undefined;
  blocked_providers?: string[] | undefined;
  zdr_only?: boolean | undefined;
  allowed_models?: string[] | null | undefined;
  guardrail?: "off" | "flag" | "block" | undefined;
}

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
  const catalog = deps.catalog?.();
  const current = await deps.store.getKeyPolicy(keyId) ?? {};
  const next: KeyPolicy = { ...current };
  if (change.sovereignty === "strict_only") next.sovereignty = "strict_only";
  else if (change.sovereignty === "any") delete next.sovereignty;
  if (change.zdr_only === true) next.zdr_only = true;
  else if (change.zdr_only === false) delete next.zdr_only;
  if (change.guardrail === "flag" || change.guardrail === "block") {
    next.guardrail = change.guardrail;
  } else if (change.guardrail === "off") delete next.guardrail;
  if (change.blocked_providers !== undefined) {
    for (const id of change.blocked_providers) {
      if (catalog && !Object.hasOwn(catalog.providers, id)) {
        throw badInput(`Unknown provider '${id}'.`, "blocked_providers");
      }
    }
    const list = [...new Set(change.blocked_providers)].sort();
    if (list.length > 0) next.blocked_providers = list;
    else delete next.blocked_providers;
  }
  if (change.allowed_models !== undefined) {
    for (const id of change.allowed_models ?? []) {
      if (catalog && !catalog.activeModels().some((m) => m.id === id)) {
        throw badInput(`Unknown model '${id}'.`, "allowed_models");
      }
    }
    if (change.allowed_models === null) delete next.allowed_models;
    else next.allowed_models = [...new Set(change.allowed_models)].sort();
  }
  await deps.store.putKeyPolicy(access.org.id, keyId, next, `dashboard:${viewer.user.email}`);
  await audit(deps, access.org.id, viewer.user.email, "policy.changed", keyId, {
    key: keyId,
    sovereignty: next.sovereignty ?? null,
    blocked_providers: next.blocked_providers?.join(",") ?? null,
    zdr_only: next.zdr_only ?? null,
    allowed_models: next.allowed_models?.length ?? null,
    guardrail: next.guardrail ?? null,
  });
  return await keyPolicyView(deps, access, keyId);
}

export interface KeyPolicyRow extends KeyPolicyView {
  name: string | null;
  prefix: string;
}

/**
 * Every active key of the organization with its narrowing and warnings (the policies page's table):
 * a key whose narrowing leaves the remote classifier no route shows its warning here, also when it
 * was the organization's later change that made it so.
 */
export async function keyPolicies(deps: DashboardDeps, access: OrgAccess): Promise<KeyPolicyRow[]> {
  const [keys, org] = await Promise.all([
    deps.store.listApiKeys(access.org.id),
    deps.store.getOrgPolicy(access.org.id),
  ]);
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
