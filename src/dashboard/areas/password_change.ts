/**
 * Changing the password while signed in: the current password first (its check is reserved
 * with the sign-in throttle, so a stolen session cannot guess it faster than the sign-in page
 * allows), then the store's one step that sets the hash, ends every session of the user and
 * revokes every set-password link (`AccountStore.setPassword`). The caller then opens a fresh
 * session for this browser: the other sessions stay ended.
 */
import type { DashboardDeps, Viewer } from "../deps.ts";
import type { UserRecord } from "../../state/account_records.ts";
import { hashPassword, passwordProblem, verifyPassword } from "../passwords.ts";
import { reserveAttempt } from "../login_throttle.ts";
import { auditAccount } from "../audit.ts";
import { badInput } from "../errors.ts";

/**
 * Checks the account's current password (throttled per account and client address, as a
 * sign-in) or throws 400 naming `param`. An account without a password (single sign-on only)
 * has none to give.
 */
export async function checkCurrentPassword(
  deps: DashboardDeps,
  user: UserRecord,
  password: string,
  address: string,
  param: string,
): Promise<void> {
  if (user.password_hash === null) {
    throw badInput(
      "This account has no password (it signs in through single sign-on or has not set one).",
      param,
    );
  }
  const attempt = await reserveAttempt(deps.accounts, { email: user.email, address }, deps.now());
  if (!await verifyPassword(password, user.password_hash)) {
    await attempt.failed();
    throw badInput("The current password is wrong.", param);
  }
  await attempt.succeeded();
}

export async function changePassword(
  deps: DashboardDeps,
  viewer: Viewer,
  input: { current_password: string; new_password: string; address: string },
): Promise<UserRecord> {
  const problem = passwordProblem(input.new_password);
  if (problem) throw badInput(problem, "new_password");
  const user = (await deps.accounts.getUser(viewer.user.id)) ?? viewer.user;
  await checkCurrentPassword(deps, user, input.current_password, input.address, "current_password");
  const hash = await hashPassword(input.new_password, deps.config.passwordScryptLogN);
  if (!await deps.accounts.setPassword(user.id, hash, new Date(deps.now()).toISOString())) {
    throw badInput("The account no longer exists.");
  }
  await auditAccount(deps, user, user.email, "user.password_changed", {
    other_sessions_ended: true,
  });
  return (await deps.accounts.getUser(user.id))!;
}
