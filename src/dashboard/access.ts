/**
 * Authorisation: which organizations a viewer may see, and what their role there allows.
 * Every organization-scoped route resolves its `:org` here first; an organization the viewer
 * has no membership in (and is not an operator for) is "not found".
 */
import type { Role } from "../state/account_records.ts";
import type { DashboardDeps, OrgAccess, Viewer } from "./deps.ts";
import { forbidden, notFound, twoFactorRequired } from "./errors.ts";
import { sessionHasSecondFactor } from "./areas/two_factor.ts";

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
  await requireSecondFactorIfAsked(deps, viewer, org);
  return { org, role: membership?.role ?? null, operator: viewer.user.operator };
}

/**
 * An organization whose owners require two-factor sign-in is reached only by sessions with a
 * second factor: one made after the account's TOTP was turned on (every password sign-in since
 * asked for a code, and the enrolling browser got a new session with its confirming code), or
 * one signed in through single sign-on (the identity provider is the factor). Anyone else —
 * operators too, and a session older than the enrolment — is sent to enrol (or sign in) first:
 * 403 `two_factor_required`; the pages redirect to Account security.
 */
async function requireSecondFactorIfAsked(
  deps: DashboardDeps,
  viewer: Viewer,
  org: { id: string; name: string },
): Promise<void> {
  if (viewer.ssoProvider !== null) return;
  if (!(await deps.control.getOrgSettings(org.id)).require_2fa) return;
  if (await sessionHasSecondFactor(deps, viewer)) return;
  throw twoFactorRequired(org);
}

export function can(access: OrgAccess, permission: Permission): boolean {
  if (access.operator && (permission === "read" || permission === "operate")) return true;
  return access.role !== null && ALLOWED[access.role].has(permission);
}

export function requirePermission(access: OrgAccess, permission: Permission, what: string): void {
  if (!can(access, permission)) throw forbidden(what);
}
