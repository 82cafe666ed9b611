/** Members of an organization (owners only): list, invite (`invitations.ts`), change role, remove. */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { hasTwoFactor } from "./two_factor.ts";
import { type Role, ROLES } from "../../state/account_records.ts";
import { audit } from "../audit.ts";
import { badInput, conflict, notFound } from "../errors.ts";
import { inviteToOrg, type SentInvitation } from "./invitations.ts";

export interface MemberView {
  user: string;
  email: string;
  role: Role;
  since: string;
  password_set: boolean;
  /** Whether the member signs in with a second factor (TOTP). */
  two_factor: boolean;
}

export function parseRole(raw: unknown): Role {
  if (typeof raw !== "string" || !(ROLES as readonly string[]).includes(raw)) {
    throw badInput("The role must be owner, admin or viewer.", "role");
  }
  return raw as Role;
}

export async function listMembers(deps: DashboardDeps, access: OrgAccess): Promise<MemberView[]> {
  requirePermission(access, "manage_members", "managing members");
  const out: MemberView[] = [];
  for (const m of await deps.accounts.listMembersOfOrg(access.org.id)) {
    const user = await deps.accounts.getUser(m.user);
    if (!user) continue;
    out.push({
      user: user.id,
      email: user.email,
      role: m.role,
      since: m.created,
      password_set: user.password_hash !== null,
      two_factor: await hasTwoFactor(deps, user.id),
    });
  }
  return out.sort((a, b) => a.email.localeCompare(b.email));
}

/**
 * Invites by e-mail: a pending invitation and its link to pass on (no e-mail is sent), the same
 * answer whether or not the e-mail has an account.
 */
export async function inviteMember(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  input: { email: string; role: Role },
): Promise<SentInvitation> {
  requirePermission(access, "manage_members", "inviting members");
  return await inviteToOrg(deps, {
    org: access.org.id,
    email: input.email,
    role: input.role,
    actor: viewer.user.email,
  });
}

export async function changeMember(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  userId: string,
  role: Role | null,
): Promise<{ user: string; role: Role | null }> {
  requirePermission(access, "manage_members", "managing members");
  const user = await deps.accounts.getUser(userId);
  const before = await deps.accounts.getMembership(access.org.id, userId);
  if (!user || !before) throw notFound("Member");
  const result = await deps.accounts.changeMembership(access.org.id, userId, role);
  if (result === "not_found") throw notFound("Member");
  if (result === "last_owner") {
    throw conflict("last_owner", "An organization keeps at least one owner.");
  }
  if (role === null) {
    await audit(deps, access.org.id, viewer.user.email, "member.removed", user.email, {
      role: before.role,
    });
  } else {
    await audit(deps, access.org.id, viewer.user.email, "member.role_changed", user.email, {
      from: before.role,
      to: role,
    });
  }
  return { user: userId, role };
}
