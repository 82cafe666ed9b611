/**
 * Signing in, setting a password through a one-time link, and creating users (admin CLI,
 * invitations). Unknown e-mail and wrong password get the same answer after the same work.
 */
import type { DashboardDeps } from "../deps.ts";
import type { Role, UserRecord } from "../../state/account_records.ts";
import { randomId } from "../../ids.ts";
import { burnPasswordCheck, hashPassword, passwordProblem, verifyPassword } from "../passwords.ts";
import { hashToken, newSecretToken } from "../secret_tokens.ts";
import { noteFailure, throttledFor } from "../login_throttle.ts";
import { audit } from "../audit.ts";
import { badInput, invalidCredentials, tooManyAttempts } from "../errors.ts";
import { checkPasswordSignIn } from "../sso/require_sso.ts";

const LINK_TTL_MS = 24 * 3_600_000;

export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw badInput("Give a valid e-mail address.", "email");
  }
  return email;
}

/** Checks the credentials; the user, or a refusal that does not tell which part was wrong. */
export async function signIn(
  deps: DashboardDeps,
  input: { email: string; password: string; address: string },
): Promise<UserRecord> {
  const email = input.email.trim().toLowerCase().slice(0, 254);
  const subjects = { email, address: input.address };
  const wait = await throttledFor(deps.accounts, subjects, deps.now());
  if (wait > 0) throw tooManyAttempts(wait);
  const user = await deps.accounts.findUserByEmail(email);
  const ok = user?.password_hash
    ? await verifyPassword(input.password, user.password_hash)
    : await burnPasswordCheck(input.password, deps.config.passwordScryptLogN);
  if (!user || !ok) {
    await noteFailure(deps.accounts, subjects, deps.now());
    const orgs = user ? await deps.accounts.listMembershipsOfUser(user.id) : [];
    const targets = orgs.length > 0 ? orgs.map((m) => m.org) : [null];
    for (const org of targets) {
      await audit(deps, org, email, "login.failed", null, { address: input.address });
    }
    throw invalidCredentials();
  }
  await checkPasswordSignIn(deps, user);
  return user;
}

/** A one-time set-password link for the user (the token is kept only as its hash). */
/** What creating users needs (the admin CLI has no dashboard running). */
export type UserDeps = Pick<DashboardDeps, "accounts" | "control" | "now" | "publicUrl">;

export async function issueSetPasswordLink(deps: UserDeps, userId: string): Promise<string> {
  const token = newSecretToken();
  const now = deps.now();
  await deps.accounts.createPasswordToken({
    hash: hashToken(token),
    user: userId,
    created: new Date(now).toISOString(),
    expires: new Date(now + LINK_TTL_MS).toISOString(),
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
  /** Set when the user has no password yet. */
  set_password_url: string | null;
}

/**
 * Finds or creates the user for `email` and, with `org`, makes them a member with `role`.
 * A user without a password gets a fresh one-time link.
 */
export async function createOrInviteUser(
  deps: UserDeps,
  input: { email: string; operator?: boolean; org?: string; role?: Role; actor: string },
): Promise<NewUserResult> {
  const email = normaliseEmail(input.email);
  let user = await deps.accounts.findUserByEmail(email);
  let created = false;
  if (!user) {
    const fresh: UserRecord = {
      id: randomId("usr_", 12),
      email,
      password_hash: null,
      operator: input.operator ?? false,
      created: new Date(deps.now()).toISOString(),
      password_changed_at: null,
    };
    if (!await deps.accounts.createUser(fresh)) throw badInput("The user already exists.");
    user = fresh;
    created = true;
    await audit(deps, input.org ?? null, input.actor, "user.created", email, {
      operator: fresh.operator,
    });
  }
  if (input.org && input.role) {
    const added = await deps.accounts.addMembership({
      org: input.org,
      user: user.id,
      role: input.role,
      created: new Date(deps.now()).toISOString(),
    });
    if (!added) throw badInput(`'${email}' is already a member of this organization.`, "email");
    await audit(deps, input.org, input.actor, "member.invited", email, { role: input.role });
  }
  const url = user.password_hash === null ? await issueSetPasswordLink(deps, user.id) : null;
  return { user, created, set_password_url: url };
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
