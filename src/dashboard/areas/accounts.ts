/**
 * Signing in, setting a password through a one-time link, and creating users (the admin CLI).
 * Unknown e-mail and wrong password get the same answer after the same work.
 */
import type { DashboardDeps } from "../deps.ts";
import type { Role, UserRecord } from "../../state/account_records.ts";
import { randomId } from "../../util/ids.ts";
import { burnPasswordCheck, hashPassword, passwordProblem, verifyPassword } from "../passwords.ts";
import { hashToken, newSecretToken } from "../secret_tokens.ts";
import { reserveAttempt } from "../login_throttle.ts";
import { audit } from "../audit.ts";
import { badInput, invalidCredentials } from "../errors.ts";
import { checkPasswordSignIn } from "../sso/require_sso.ts";
import { inviteToOrg, type SentInvitation } from "./invitations.ts";
import { normaliseEmail, type UserDeps } from "./user_deps.ts";

const LINK_TTL_MS = 24 * 3_600_000;

/**
 * Checks the credentials; the user, or a refusal that does not tell which part was wrong. The
 * attempt is reserved with the throttle before the password is hashed.
 */
export async function signIn(
  deps: DashboardDeps,
  input: { email: string; password: string; address: string },
): Promise<UserRecord> {
  const email = input.email.trim().toLowerCase().slice(0, 254);
  const attempt = await reserveAttempt(
    deps.accounts,
    { email, address: input.address },
    deps.now(),
  );
  const user = await deps.accounts.findUserByEmail(email);
  const ok = user?.password_hash
    ? await verifyPassword(input.password, user.password_hash)
    : await burnPasswordCheck(input.password, deps.config.passwordScryptLogN);
  if (!user || !ok) {
    await attempt.failed();
    const orgs = user ? await deps.accounts.listMembershipsOfUser(user.id) : [];
    const targets = orgs.length > 0 ? orgs.map((m) => m.org) : [null];
    for (const org of targets) {
      await audit(deps, org, email, "login.failed", null, { address: input.address });
    }
    throw invalidCredentials();
  }
  await attempt.succeeded();
  // The password was right; an organization that requires single sign-on may still refuse it.
  await checkPasswordSignIn(deps, user);
  return user;
}

/**
 * A one-time set-password link for the user (the token is kept only as its hash); the store
 * revokes the user's older links in the same step. Only whoever created the user in the same
 * act may be handed it (`createUser`).
 */
export async function issueSetPasswordLink(
  deps: UserDeps,
  userId: string,
  ttlMs = LINK_TTL_MS,
): Promise<string> {
  const token = newSecretToken();
  const now = deps.now();
  await deps.accounts.createPasswordToken({
    hash: hashToken(token),
    user: userId,
    created: new Date(now).toISOString(),
    expires: new Date(now + ttlMs).toISOString(),
  });
  return `${deps.publicUrl()}/set-password?token=${token}`;
}

/** Uses a set-password link: sets the password and ends the user's other sessions. */
export async function setPasswordWithToken(
  deps: DashboardDeps,
  token: string,
  password: string,
): Promise<UserRecord> {
  const problem = passwordProblem(password);
  if (problem) throw badInput(problem, "password");
  const record = await deps.accounts.takePasswordToken(hashToken(token));
  if (!record || Date.parse(record.expires) <= deps.now()) {
    throw badInput("This link is invalid, used or expired; ask for a new one.", "token");
  }
  const hash = await hashPassword(password, deps.config.passwordScryptLogN);
  const at = new Date(deps.now()).toISOString();
  if (!await deps.accounts.setPassword(record.user, hash, at)) {
    throw badInput("This link is invalid, used or expired; ask for a new one.", "token");
  }
  const user = (await deps.accounts.getUser(record.user))!;
  await audit(deps, null, user.email, "user.password_set", user.email);
  return user;
}

export interface NewUserResult {
  user: UserRecord;
  created: boolean;
  /** Only when this call created the user: its first set-password link. */
  set_password_url: string | null;
  /** With `org` for a user that existed already: the pending membership it accepts. */
  invitation: SentInvitation | null;
}

/**
 * The operator's `user create`: a new e-mail becomes a user (with `org`, a member with `role`)
 * and its set-password link goes to the operator, who created it in this act. An existing
 * user gets no link and no change of password; with `org` it gets an invitation it accepts
 * after signing in, as any invited account does.
 */
export async function createUser(
  deps: UserDeps,
  input: { email: string; operator?: boolean; org?: string; role?: Role; actor: string },
): Promise<NewUserResult> {
  const email = normaliseEmail(input.email);
  const existing = await deps.accounts.findUserByEmail(email);
  if (existing) {
    const invitation = input.org && input.role
      ? await inviteToOrg(deps, { org: input.org, email, role: input.role, actor: input.actor })
      : null;
    return { user: existing, created: false, set_password_url: null, invitation };
  }
  const user: UserRecord = {
    id: randomId("usr_", 12),
    email,
    password_hash: null,
    operator: input.operator ?? false,
    created: new Date(deps.now()).toISOString(),
    password_changed_at: null,
  };
  if (!await deps.accounts.createUser(user)) throw badInput("The user already exists.", "email");
  await audit(deps, input.org ?? null, input.actor, "user.created", email, {
    operator: user.operator,
  });
  if (input.org && input.role) {
    await deps.accounts.addMembership({
      org: input.org,
      user: user.id,
      role: input.role,
      created: new Date(deps.now()).toISOString(),
    });
    await audit(deps, input.org, input.actor, "member.added", email, { role: input.role });
  }
  const url = await issueSetPasswordLink(deps, user.id);
  return { user, created: true, set_password_url: url, invitation: null };
}

/** The public view of a user: never the password hash. */
export function publicUser(user: UserRecord) {
  return {
    id: user.id,
    email: user.email,
    operator: user.operator,
    created: user.created,
    password_set: user.password_hash !== null,
  };
}
