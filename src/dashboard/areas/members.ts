/** Members of an organization (owners only): list, invite, change role, remove. */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { type Role, ROLES } from "../../state/account_records.ts";
import { audit } from "../audit.ts";
import { badInput, conflict, notFound } from "../errors.ts";
import { createOrInviteUser } from "./accounts.ts";

export interface MemberView {
  user: string;
  email: string;
  role: Role;
  since: string;
  password_set: boolean;
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
    });
  }
  return out.sort((a, b) => a.email.localeCompare(b.email));
}

/** Invites by e-mail; the answer carries the set-password link to pass on (no e-mail is sent). */
export async function inviteMember(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  input: { email: string; role: Role },
) {
  requirePermission(access, "manage_members", "inviting members");
  const result = await createOrInviteUser(deps, {
    email: input.email,
    org: access.org.id,
    role: input.role,
    actor: viewer.user.email,
  });
  return {
    user: result.user.id,
    email: result.user.email,
    role: input.role,
    set_password_url: result.set_password_url,
  };
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
