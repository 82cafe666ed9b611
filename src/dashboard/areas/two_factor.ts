/**
 * Two-factor sign-in for the signed-in account: its state, enrolment (a secret shown once as a
 * QR code and an `otpauth://` URI, confirmed by a first code), recovery codes (shown once,
 * renewed with a code), and turning it off (the password and a code). Every change is audited;
 * the secret and the codes never are.
 */
import type { DashboardDeps, Viewer } from "../deps.ts";
import type { UserRecord } from "../../state/account_records.ts";
import { auditAccount } from "../audit.ts";
import { badInput, conflict } from "../errors.ts";
import { codeStep, looksLikeCode, newTotpSecret, totpUri } from "../two_factor/totp.ts";
import { newRecoveryCodes, recoveryCodeHash } from "../two_factor/recovery_codes.ts";
import { qrCodeDataUrl } from "../two_factor/qr_code.ts";
import { checkCurrentPassword } from "./password_change.ts";
import { reserveAttempt } from "../login_throttle.ts";

type TwoFactorDeps = Pick<DashboardDeps, "twoFactor" | "control" | "accounts" | "now">;

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
}

export async function twoFactorStatus(
  deps: Pick<DashboardDeps, "twoFactor">,
  userId: string,
): Promise<TwoFactorStatus> {
  const record = await deps.twoFactor.getTotp(userId);
  const enabled = record?.enabled_at != null;
  return {
    enabled,
    enabled_at: enabled ? record!.enabled_at : null,
    recovery_codes_left: enabled ? record!.recovery_hashes.length : 0,
  };
}

/** Whether the user signs in with a second factor. */
export async function hasTwoFactor(
  deps: Pick<DashboardDeps, "twoFactor">,
  userId: string,
): Promise<boolean> {
  return (await deps.twoFactor.getTotp(userId))?.enabled_at != null;
}

/**
 * Whether this session counts as signed in with a second factor in organization `orgId`:
 * signed in through the identity provider that organization is bound to (the provider is the
 * factor where the organization trusts it — a provider bound only elsewhere proves nothing
 * here), or signed in with the account's own TOTP or a recovery code since it was turned on
 * (or the session replaced one that was: a password change carries the flag, the enrolling
 * browser gets it by confirming). A session older than the flag counts when made since the
 * enrolment without single sign-on (every password sign-in since then asked for a code).
 */
export async function sessionHasSecondFactor(
  deps: Pick<DashboardDeps, "twoFactor" | "sso">,
  viewer: Viewer,
  orgId: string,
): Promise<boolean> {
  if (viewer.ssoProvider !== null) {
    const binding = await deps.sso.getBinding(orgId);
    if (binding?.provider === viewer.ssoProvider) return true;
  }
  return await sessionHasOwnFactor(deps, viewer);
}

/**
 * Whether the session gave the account's own second factor (TOTP or a recovery code) since it
 * was turned on: what a session that replaces it (after a password change) carries on. A
 * session that did not — one from before the enrolment, say — gives none to its successor.
 */
export async function sessionHasOwnFactor(
  deps: Pick<DashboardDeps, "twoFactor">,
  viewer: Viewer,
): Promise<boolean> {
  if (viewer.secondFactor === false) return false;
  const enabledAt = (await deps.twoFactor.getTotp(viewer.user.id))?.enabled_at;
  if (enabledAt == null || Date.parse(viewer.sessionCreated) < Date.parse(enabledAt)) return false;
  return viewer.secondFactor === true || viewer.ssoProvider === null;
}

const alreadyOn = () =>
  conflict(
    "two_factor_enabled",
    "Two-factor sign-in is on already; turn it off first to re-enrol.",
  );
const wrongCode = () =>
  badInput("The code is wrong or was used already; use the current one from the app.", "code");

export interface Enrolment {
  secret: string;
  otpauth_uri: string;
  /** The URI as a QR code (an SVG `data:` URL for an `<img>`). */
  qr_code: string;
}

/** How long after a single sign-on an account without a password may start an enrolment. */
export const FRESH_SSO_MS = 10 * 60_000;

/**
 * A new pending enrolment (replacing an unconfirmed one): scan it, then confirm with a code.
 * Asks for the current password (throttled as a sign-in) — or, for an account without one, a
 * single sign-on made within the last 10 minutes — so a session alone (a stolen cookie) cannot
 * put its own authenticator on the account. The pending secret belongs to the session that
 * started it: no other session sees it again or confirms it.
 */
export async function startEnrolment(
  deps: DashboardDeps,
  viewer: Viewer,
  input: { password: string; address: string },
): Promise<Enrolment> {
  const user = (await deps.accounts.getUser(viewer.user.id)) ?? viewer.user;
  if (user.password_hash !== null) {
    await checkCurrentPassword(deps, user, input.password, input.address, "password");
  } else if (
    viewer.ssoProvider === null || deps.now() - Date.parse(viewer.sessionCreated) > FRESH_SSO_MS
  ) {
    throw badInput(
      "This account has no password: sign in again through your identity provider, then set up two-factor sign-in within 10 minutes.",
      "password",
    );
  }
  const secret = newTotpSecret();
  const stored = await deps.twoFactor.putPendingTotp({
    user: viewer.user.id,
    secret,
    created: new Date(deps.now()).toISOString(),
    enabled_at: null,
    last_step: 0,
    recovery_hashes: [],
    pending_session: viewer.sessionHash,
  });
  if (!stored) throw alreadyOn();
  const uri = totpUri(secret, viewer.user.email);
  return { secret, otpauth_uri: uri, qr_code: await qrCodeDataUrl(uri) };
}

/** This session's pending enrolment, if it started one. */
async function ownPending(deps: TwoFactorDeps, viewer: Viewer) {
  const record = await deps.twoFactor.getTotp(viewer.user.id);
  return record && record.enabled_at === null && record.pending_session === viewer.sessionHash
    ? record
    : undefined;
}

/** The pending enrolment again (the page shown after a wrong confirmation code). */
export async function pendingEnrolment(
  deps: TwoFactorDeps,
  viewer: Viewer,
): Promise<Enrolment | undefined> {
  const record = await ownPending(deps, viewer);
  if (!record) return undefined;
  const uri = totpUri(record.secret, viewer.user.email);
  return { secret: record.secret, otpauth_uri: uri, qr_code: await qrCodeDataUrl(uri) };
}

/**
 * Confirms the pending enrolment with a code from the app: two-factor sign-in is on from now,
 * and the recovery codes come back — the only time they are shown.
 */
export async function confirmEnrolment(
  deps: TwoFactorDeps,
  viewer: Viewer,
  code: string,
): Promise<{ recovery_codes: string[] }> {
  if (await hasTwoFactor(deps, viewer.user.id)) throw alreadyOn();
  const record = await ownPending(deps, viewer);
  if (!record) {
    throw badInput("Start the set-up first (no enrolment is pending in this session).", "code");
  }
  const step = codeStep(record.secret, code, deps.now());
  if (step === undefined) throw wrongCode();
  const { codes, hashes } = newRecoveryCodes();
  const at = new Date(deps.now()).toISOString();
  if (!await deps.twoFactor.enableTotp(viewer.user.id, record.secret, at, step, hashes)) {
    throw badInput("The set-up changed meanwhile (started again elsewhere); start again.", "code");
  }
  await auditAccount(deps, viewer.user, viewer.user.email, "user.2fa_enabled", {
    recovery_codes: codes.length,
  });
  return { recovery_codes: codes };
}

/**
 * Whether `code` — a TOTP code or a recovery code — is a valid second factor of the user now.
 * A valid one is used up (a code's time step, a recovery code), as at sign-in.
 */
export async function useSecondFactor(
  deps: Pick<DashboardDeps, "twoFactor" | "now">,
  user: UserRecord,
  code: string,
): Promise<"code" | "recovery_code" | undefined> {
  const record = await deps.twoFactor.getTotp(user.id);
  if (!record?.enabled_at) return undefined;
  if (looksLikeCode(code)) {
    const step = codeStep(record.secret, code, deps.now());
    return step !== undefined && await deps.twoFactor.useTotpStep(user.id, step)
      ? "code"
      : undefined;
  }
  const trimmed = code.trim();
  if (trimmed === "" || trimmed.length > 40) return undefined;
  return await deps.twoFactor.useRecoveryCode(user.id, recoveryCodeHash(trimmed))
    ? "recovery_code"
    : undefined;
}

/**
 * Runs a code check of the user under the sign-in second step's throttle (the same `2fa:`
 * counter per account and client address), so a session cannot guess codes faster than a
 * sign-in can. Throws 400 `param: code` when `check` finds the code wrong.
 */
async function throttledCodeCheck<T>(
  deps: Pick<DashboardDeps, "accounts" | "now">,
  user: UserRecord,
  address: string,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const attempt = await reserveAttempt(
    deps.accounts,
    { email: `2fa:${user.email}`, address },
    deps.now(),
  );
  const result = await check();
  if (result === undefined) {
    await attempt.failed();
    throw wrongCode();
  }
  await attempt.succeeded();
  return result;
}

/** Turns two-factor sign-in off: the password (throttled as a sign-in) and a code. */
export async function disableTwoFactor(
  deps: DashboardDeps,
  viewer: Viewer,
  input: { password: string; code: string; address: string },
): Promise<TwoFactorStatus> {
  if (!await hasTwoFactor(deps, viewer.user.id)) {
    throw badInput("Two-factor sign-in is not on.", "code");
  }
  await checkCurrentPassword(deps, viewer.user, input.password, input.address, "password");
  const used = await throttledCodeCheck(
    deps,
    viewer.user,
    input.address,
    () => useSecondFactor(deps, viewer.user, input.code),
  );
  await deps.twoFactor.deleteTotp(viewer.user.id);
  await auditAccount(deps, viewer.user, viewer.user.email, "user.2fa_disabled", { with: used });
  return await twoFactorStatus(deps, viewer.user.id);
}

/** New recovery codes for the old ones (all of them stop working), with a current code. */
export async function renewRecoveryCodes(
  deps: TwoFactorDeps,
  viewer: Viewer,
  code: string,
  address: string,
): Promise<{ recovery_codes: string[] }> {
  const record = await deps.twoFactor.getTotp(viewer.user.id);
  if (!record?.enabled_at) throw badInput("Two-factor sign-in is not on.", "code");
  await throttledCodeCheck(deps, viewer.user, address, async () => {
    const step = codeStep(record.secret, code, deps.now());
    return step !== undefined && await deps.twoFactor.useTotpStep(viewer.user.id, step)
      ? true
      : undefined;
  });
  const { codes, hashes } = newRecoveryCodes();
  if (!await deps.twoFactor.replaceRecoveryCodes(viewer.user.id, hashes)) {
    throw badInput("Two-factor sign-in is not on.", "code");
  }
  await auditAccount(deps, viewer.user, viewer.user.email, "user.2fa_recovery_codes_renewed");
  return { recovery_codes: codes };
}
