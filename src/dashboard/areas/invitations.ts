/**
 * Invitations: how an organization gains a member. An invitation is addressed to an e-mail,
 * never to an account, so inviting hands the inviter nothing that acts as an existing account
 * and answers the same whether or not the e-mail has one. The account with that e-mail accepts
 * or declines after signing in; while no account has it, the link's holder may create that
 * account (choosing its first password), which accepts the invitation in the same act.
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import type { InvitationRecord, Role, UserRecord } from "../../state/account_records.ts";
import { randomId } from "../../util/ids.ts";
import { hashToken, newSecretToken } from "../secret_tokens.ts";
import { hashPassword, passwordProblem } from "../passwords.ts";
import { requirePermission } from "../access.ts";
import { audit } from "../audit.ts";
import { badInput, conflict, notFound } from "../errors.ts";
import { normaliseEmail, type UserDeps } from "./user_deps.ts";

/** An invitation link works for 7 days (a colleague may be away for a few). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** What the inviter sees: the same fields whether or not the e-mail has an account. */
export interface SentInvitation {
  invitation: string;
  org: string;
  email: string;
  role: Role;
  status: "pending";
  expires: string;
  /** The link to pass on (Sovra mails no invitations). */
  invite_url: string;
}

/** What an invitee sees of an invitation addressed to them. */
export interface InvitationView {
  id: string;
  org: string;
  org_name: string;
  email: string;
  role: Role;
  invited_by: string;
  created: string;
  expires: string;
}

const linkRefused = () =>
  badInput("This invitation link is invalid, revoked or expired; ask for a new one.", "token");

function live(inv: InvitationRecord | undefined, now: number): InvitationRecord | undefined {
  return inv && Date.parse(inv.expires) > now ? inv : undefined;
}

/**
 * Records a pending invitation of `email` to `org` with `role`, replacing (and revoking the link
 * of) an earlier one to the same e-mail. Refused only when the e-mail is already a member of
 * this organization, which the inviter can see in its member list anyway.
 */
export async function inviteToOrg(
  deps: UserDeps,
  input: { org: string; email: string; role: Role; actor: string },
): Promise<SentInvitation> {
  const email = normaliseEmail(input.email);
  const user = await deps.accounts.findUserByEmail(email);
  if (user && await deps.accounts.getMembership(input.org, user.id)) {
    throw badInput(`'${email}' is already a member of this organization.`, "email");
  }
  const token = newSecretToken();
  const now = deps.now();
  const record: InvitationRecord = {
    id: randomId("inv_", 16),
    org: input.org,
    email,
    role: input.role,
    token_hash: hashToken(token),
    invited_by: input.actor,
    created: new Date(now).toISOString(),
    expires: new Date(now + INVITATION_TTL_MS).toISOString(),
  };
  await deps.accounts.putInvitation(record);
  await audit(deps, input.org, input.actor, "member.invited", email, {
    role: input.role,
    invitation: record.id,
  });
  return {
    invitation: record.id,
    org: record.org,
    email,
    role: record.role,
    status: "pending",
    expires: record.expires,
    invite_url: `${deps.publicUrl()}/invite?token=${token}`,
  };
}

async function viewOf(deps: DashboardDeps, inv: InvitationRecord): Promise<InvitationView> {
  const org = await deps.store.getOrg(inv.org);
  return {
    id: inv.id,
    org: inv.org,
    org_name: org?.name ?? inv.org,
    email: inv.email,
    role: inv.role,
    invited_by: inv.invited_by,
    created: inv.created,
    expires: inv.expires,
  };
}

/** The invitation a link names (for its page), or 400 naming the token. */
export async function invitationByLink(deps: DashboardDeps, token: string) {
  const inv = live(await deps.accounts.findInvitationByToken(hashToken(token)), deps.now());
  if (!inv) throw linkRefused();
  return await viewOf(deps, inv);
}

/**
 * Creates the invited e-mail's account through the link, with its first password, and accepts
 * the invitation. Refused (409 `account_exists`) when the e-mail has an account already: that
 * account signs in and accepts; the link never sets or changes its password.
 */
export async function createAccountFromInvitation(
  deps: DashboardDeps,
  token: string,
  password: string,
): Promise<{ user: UserRecord; org: string; role: Role }> {
  const problem = passwordProblem(password);
  if (problem) throw badInput(problem, "password");
  const inv = live(await deps.accounts.findInvitationByToken(hashToken(token)), deps.now());
  if (!inv) throw linkRefused();
  const accountExists = () =>
    conflict(
      "account_exists",
      `An account already exists for ${inv.email}: sign in with it to accept the invitation.`,
    );
  if (await deps.accounts.findUserByEmail(inv.email)) throw accountExists();
  const now = deps.now();
  const user: UserRecord = {
    id: randomId("usr_", 12),
    email: inv.email,
    password_hash: await hashPassword(password, deps.config.passwordScryptLogN),
    operator: false,
    created: new Date(now).toISOString(),
    password_changed_at: new Date(now).toISOString(),
  };
  // The e-mail is unique: of two uses of the link at once, one creates the account.
  if (!await deps.accounts.createUser(user)) throw accountExists();
  await audit(deps, inv.org, inv.email, "user.created", inv.email, {
    operator: false,
    invitation: inv.id,
  });
  await acceptFor(deps, user, inv);
  return { user, org: inv.org, role: inv.role };
}

async function acceptFor(deps: DashboardDeps, user: UserRecord, inv: InvitationRecord) {
  const at = new Date(deps.now()).toISOString();
  const outcome = await deps.accounts.acceptInvitation(inv.id, user.id, at);
  if (outcome === "not_found") throw notFound("Invitation");
  await audit(deps, inv.org, user.email, "invitation.accepted", user.email, {
    role: inv.role,
    invitation: inv.id,
    already_member: outcome === "already_member",
  });
}

/** The signed-in account's pending invitations, oldest first. */
export async function pendingInvitations(
  deps: DashboardDeps,
  viewer: Viewer,
): Promise<InvitationView[]> {
  const now = deps.now();
  const out: InvitationView[] = [];
  for (const inv of await deps.accounts.listInvitationsForEmail(viewer.user.email)) {
    if (live(inv, now)) out.push(await viewOf(deps, inv));
  }
  return out.sort((a, b) => a.created.localeCompare(b.created));
}

/** One of the viewer's own pending invitations, or 404 (another's id reveals nothing). */
async function ownInvitation(deps: DashboardDeps, viewer: Viewer, id: string) {
  const inv = live(await deps.accounts.getInvitation(id), deps.now());
  if (!inv || inv.email !== viewer.user.email) throw notFound("Invitation");
  return inv;
}

export async function acceptInvitation(deps: DashboardDeps, viewer: Viewer, id: string) {
  const inv = await ownInvitation(deps, viewer, id);
  await acceptFor(deps, viewer.user, inv);
  return { org: inv.org, role: inv.role, accepted: true };
}

export async function declineInvitation(deps: DashboardDeps, viewer: Viewer, id: string) {
  const inv = await ownInvitation(deps, viewer, id);
  if (!await deps.accounts.deleteInvitation(inv.id)) throw notFound("Invitation");
  await audit(deps, inv.org, viewer.user.email, "invitation.declined", viewer.user.email, {
    role: inv.role,
    invitation: inv.id,
  });
  return { org: inv.org, declined: true };
}

/** The organization's pending invitations (owners), by e-mail. */
export async function orgInvitations(deps: DashboardDeps, access: OrgAccess) {
  requirePermission(access, "manage_members", "managing members");
  const now = deps.now();
  return (await deps.accounts.listInvitationsOfOrg(access.org.id))
    .filter((inv) => live(inv, now))
    .map((inv) => ({
      id: inv.id,
      email: inv.email,
      role: inv.role,
      invited_by: inv.invited_by,
      created: inv.created,
      expires: inv.expires,
    }));
}

export async function revokeInvitation(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  id: string,
) {
  requirePermission(access, "manage_members", "managing members");
  const inv = await deps.accounts.getInvitation(id);
  if (!inv || inv.org !== access.org.id || !await deps.accounts.deleteInvitation(id)) {
    throw notFound("Invitation");
  }
  await audit(deps, access.org.id, viewer.user.email, "invitation.revoked", inv.email, {
    role: inv.role,
    invitation: inv.id,
  });
  return { invitation: id, revoked: true };
}
