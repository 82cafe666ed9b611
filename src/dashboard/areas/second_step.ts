/**
 * The second step of a password sign-in. An account with two-factor sign-in gets no session
 * for its password alone: a challenge (a 256-bit token, kept as its SHA-256, five minutes)
 * stands for "password proven", and a TOTP code or a recovery code turns it into a session.
 * Codes are throttled as passwords are (`login_throttle.ts`, counted apart from them), each code
 * and recovery code works once, and a challenge completes one sign-in only. A password changed
 * after the challenge was made voids it.
 */
import type { DashboardDeps } from "../deps.ts";
import type { UserRecord } from "../../state/account_records.ts";
import { hashToken, newSecretToken } from "../secret_tokens.ts";
import { reserveAttempt } from "../login_throttle.ts";
import { auditAccount } from "../audit.ts";
import { GatewayError } from "../../errors.ts";
import { hasTwoFactor, useSecondFactor } from "./two_factor.ts";

export const CHALLENGE_TTL_MS = 5 * 60_000;

const expired = () =>
  new GatewayError(
    401,
    "two_factor_expired",
    "This sign-in took too long or was completed already; sign in again with your password.",
  );

const wrongCode = () =>
  new GatewayError(
    401,
    "invalid_two_factor_code",
    "The code is wrong or was used already. Use the current code from your authenticator app, or one of your recovery codes.",
    { param: "code" },
  );

/**
 * After a correct password: undefined when the account has no second factor (sign it in), or
 * the challenge token the second step answers.
 */
export async function secondStepFor(
  deps: DashboardDeps,
  user: UserRecord,
  next: string,
): Promise<string | undefined> {
  if (!await hasTwoFactor(deps, user.id)) return undefined;
  const token = newSecretToken();
  const now = deps.now();
  await deps.twoFactor.createChallenge({
    hash: hashToken(token),
    user: user.id,
    created: new Date(now).toISOString(),
    expires: new Date(now + CHALLENGE_TTL_MS).toISOString(),
    next,
  });
  return token;
}

/** Completes the sign-in with a code or a recovery code: the user and where to go next. */
export async function completeSecondStep(
  deps: DashboardDeps,
  input: { challenge: string; code: string; address: string },
): Promise<{ user: UserRecord; next: string }> {
  const hash = input.challenge.length <= 100 ? hashToken(input.challenge) : "";
  const challenge = hash ? await deps.twoFactor.getChallenge(hash) : undefined;
  if (!challenge || Date.parse(challenge.expires) <= deps.now()) throw expired();
  const user = await deps.accounts.getUser(challenge.user);
  const changed = user?.password_changed_at ? Date.parse(user.password_changed_at) : 0;
  if (!user || changed > Date.parse(challenge.created)) throw expired();
  // Counted apart from passwords: a mistyped code does not use up the password's tries.
  const attempt = await reserveAttempt(
    deps.accounts,
    { email: `2fa:${user.email}`, address: input.address },
    deps.now(),
  );
  const used = await useSecondFactor(deps, user, input.code);
  if (!used) {
    await attempt.failed();
    await auditAccount(deps, user, user.email, "login.2fa_failed", { address: input.address });
    throw wrongCode();
  }
  await attempt.succeeded();
  if (!await deps.twoFactor.takeChallenge(hash)) throw expired();
  if (used === "recovery_code") {
    const left = (await deps.twoFactor.getTotp(user.id))?.recovery_hashes.length ?? 0;
    await auditAccount(deps, user, user.email, "login.recovery_code_used", {
      recovery_codes_left: left,
    });
  }
  return { user, next: challenge.next };
}
