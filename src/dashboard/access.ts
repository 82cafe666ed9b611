/**
 * Authorisation: which organizations a viewer may see, and what their role there allows.
 * Every organization-scoped route resolves its `:org` here first; an organization the viewer
 * has no membership in (and is not an operator for) is "not found".
 */
import type { Role } from "../state/account_records.ts";
import type { DashboardDeps, OrgAccess, Viewer } from "./deps.ts";
import { forbidden, notFound } from "./errors.ts";

export type Permission =
  | "read" // overview, keys list, credits, usage, requests, audit
  | "manage_keys" // create, revoke
  | "manage_members" // invite, role change, remove, low-balance threshold
  | "operate" // grant credits, RPM ceiling, create organizations
  | "manage_policies" // organization policies (sovereignty, providers, ZDR, models, guardrail)
  | "manage_sso"; // the organization's identity provider, its role rules, "require SSO"

const ALLOWED: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set(["read", "manage_keys", "manage_members", "manage_policies", "manage_sso"]),
  admin: new Set(["read", "manage_keys", "manage_policies"]),
  viewer: new Set(["read"]),
};

export async function resolveOrgAccess(
  deps: DashboardDeps,
  viewer: Viewer,
  orgId: string,
): Promise<OrgAccess> {
  const membership = viewer.memberships.find((m) => m.org === orgId);
  if (!membership && !viewer.user.operator) throw notFound("Organization");
  const org = await deps.store.getOrg(orgId);
  if (!org) throw notFound("Organization");
  return { org, role: membership?.role ?? null, operator: viewer.user.operator };
}

export function can(access: OrgAccess, permission: Permission): boolean {
  if (access.operator && (permission === "read" || permission === "operate")) return true;
  return access.role !== null && ALLOWED[access.role].has(permission);
}

export function requirePermission(access: OrgAccess, permission: Permission, what: string): void {
  if (!can(access, permission)) throw forbidden(what);
}
