/**
 * Password reset: a one-time set-password link for an account, by e-mail when SMTP is set up
 * (`SOVRA_SMTP_URL`), or printed for the operator (`admin user reset`). Minting a link revokes
 * the account's older ones, and using it sets the password in the store's one step that ends
 * every session and revokes every link (`AccountStore.setPassword`).
 *
 * The request's answer never says whether the e-mail has an account: the same status and body
 * for every well-formed e-mail, given before any account-specific work (the lookup, the link and
 * the mail run afterwards, in the background). Requests are throttled per (e-mail, client
 * address) and per client address; the mails an account receives are capped per hour whoever
 * asks (beyond, nothing is sent — the answer stays the same), so nobody can flood a mailbox.
 *
 * Single sign-on: a password is of no use to a member whose every organization requires SSO
 * (owners keep theirs: break-glass). Such an account gets no link while the requirement holds;
 * its mail says which provider to sign in with instead (`ssoInsteadOfPassword`).
 */
import type { DashboardDeps } from "../deps.ts";
import { GatewayError } from "../../errors.ts";
import { LOGIN_WINDOW_MS } from "../login_throttle.ts";
import { ssoInsteadOfPassword } from "../sso/require_sso.ts";
import { audit, auditAccount } from "../audit.ts";
import { issueSetPasswordLink } from "./accounts.ts";
import { normaliseEmail, type UserDeps } from "./user_deps.ts";

/** A mailed link works for an hour; the operator's (passed on by hand) for 24 hours. */
export const MAILED_LINK_TTL_MS = 3_600_000;
export const OPERATOR_LINK_TTL_MS = 24 * 3_600_000;
/** Requests per fixed 15-minute window: per (e-mail, address), and per address. */
export const RESET_REQUESTS_PER_PAIR = 5;
export const RESET_REQUESTS_PER_ADDRESS = 20;
/** Mails per account per hour, whoever asks. */
export const RESET_MAILS_PER_HOUR = 3;
const HOUR_MS = 3_600_000;

const throttled = (retryAfterSeconds: number) =>
  new GatewayError(429, "too_many_attempts", "Too many reset requests; try again later.", {
    headers: { "retry-after": String(retryAfterSeconds) },
  });

export const resetUnavailable = () =>
  new GatewayError(
    503,
    "password_reset_unavailable",
    "Password reset by e-mail is not set up on this Sovra (no SMTP server); ask its operator for a reset link.",
  );

/** Asks for a reset link by e-mail; the same answer whether the e-mail has an account or not. */
export async function requestPasswordReset(
  deps: DashboardDeps,
  input: { email: string; address: string },
): Promise<{ requested: true }> {
  const mailer = deps.mailer;
  if (!mailer) throw resetUnavailable();
  const email = normaliseEmail(input.email);
  const now = deps.now();
  const window = Math.floor(now / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS;
  const ttl = 2 * LOGIN_WINDOW_MS;
  const retry = Math.max(1, Math.ceil((window + LOGIN_WINDOW_MS - now) / 1000));
  const pair = `reset:${email}|${input.address}`;
  if (!await deps.accounts.reserveLoginAttempt(pair, window, RESET_REQUESTS_PER_PAIR, ttl)) {
    throw throttled(retry);
  }
  const from = `reset-from:${input.address}`;
  if (!await deps.accounts.reserveLoginAttempt(from, window, RESET_REQUESTS_PER_ADDRESS, ttl)) {
    throw throttled(retry);
  }
  deps.background.run(() => mailResetLink(deps, email, input.address));
  return { requested: true };
}

async function mailResetLink(deps: DashboardDeps, email: string, address: string) {
  const user = await deps.accounts.findUserByEmail(email);
  if (!user) {
    await audit(deps, null, email, "user.password_reset_requested", null, {
      address,
      account: false,
    });
    return;
  }
  const hour = Math.floor(deps.now() / HOUR_MS) * HOUR_MS;
  const subject = `reset-mail:${email}`;
  if (!await deps.accounts.reserveLoginAttempt(subject, hour, RESET_MAILS_PER_HOUR, 2 * HOUR_MS)) {
    await auditAccount(deps, user, email, "user.password_reset_refused", {
      address,
      reason: "mail_limit",
    });
    return;
  }
  const providers = await ssoInsteadOfPassword(deps, user);
  if (providers) {
    await deps.mailer!.send({
      to: user.email,
      subject: "Your Sovra sign-in",
      text: ssoMail(user.email, providers, deps.publicUrl()),
    });
    await auditAccount(deps, user, email, "user.password_reset_refused", {
      address,
      reason: "sso_required",
    });
    return;
  }
  const url = await issueSetPasswordLink(deps, user.id, MAILED_LINK_TTL_MS);
  await deps.mailer!.send({
    to: user.email,
    subject: "Reset your Sovra password",
    text: resetMail(user.email, url),
  });
  await auditAccount(deps, user, email, "user.password_reset_requested", {
    address,
    via: "email",
  });
}

function resetMail(email: string, url: string): string {
  return [
    `Someone (most likely you) asked to reset the password of the Sovra account ${email}.`,
    "",
    "Choose a new password here. The link works once, within one hour:",
    "",
    url,
    "",
    "Setting the new password signs the account out everywhere. If you did not ask for this,",
    "ignore this message: the password stays as it is.",
    "",
  ].join("\n");
}

function ssoMail(email: string, providers: string[], dashboardUrl: string): string {
  return [
    `Someone (most likely you) asked to reset the password of the Sovra account ${email}.`,
    "",
    "Your organization requires single sign-on, so its members sign in without a Sovra",
    `password: use "Sign in with ${providers.join('" or "')}" at ${dashboardUrl}/login.`,
    "No password link was made.",
    "",
  ].join("\n");
}

export class ResetRefused extends Error {
  override name = "ResetRefused";
}

/**
 * The operator's `admin user reset`: a set-password link for an existing account, to pass on
 * (revoking the account's older links); refused while single sign-on leaves a password of no
 * use to it (see above).
 */
export async function operatorResetLink(
  deps: UserDeps & Pick<DashboardDeps, "sso">,
  rawEmail: string,
): Promise<{ id: string; email: string; reset_url: string; expires: string }> {
  const email = normaliseEmail(rawEmail);
  const user = await deps.accounts.findUserByEmail(email);
  if (!user) throw new ResetRefused(`No user with the e-mail '${email}'.`);
  const providers = await ssoInsteadOfPassword(deps, user);
  if (providers) {
    throw new ResetRefused(
      `'${email}' is a member only of organizations that require single sign-on: it signs in with ${
        providers.join(" or ")
      }, and gets no password while that holds ('admin sso bind --org ID --require-sso false' lifts it).`,
    );
  }
  const expires = new Date(deps.now() + OPERATOR_LINK_TTL_MS).toISOString();
  const url = await issueSetPasswordLink(deps, user.id, OPERATOR_LINK_TTL_MS);
  await auditAccount(deps, user, "cli", "user.password_reset_requested", { via: "cli" });
  return { id: user.id, email: user.email, reset_url: url, expires };
}
