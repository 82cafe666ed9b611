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
 * Whether this session was made with a second factor: a single sign-on session, or one made
 * since the account's TOTP was turned on (the password sign-ins since then all asked for a code;
 * confirming the enrolment renews the enrolling browser's session).
 */
export async function sessionHasSecondFactor(
  deps: Pick<DashboardDeps, "twoFactor">,
  viewer: Viewer,
): Promise<boolean> {
  if (viewer.ssoProvider !== null) return true;
  const enabledAt = (await deps.twoFactor.getTotp(viewer.user.id))?.enabled_at;
  return enabledAt != null && Date.parse(viewer.sessionCreated) >= Date.parse(enabledAt);
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

/** A new pending enrolment (replacing an unconfirmed one): scan it, then confirm with a code. */
export async function startEnrolment(deps: TwoFactorDeps, viewer: Viewer): Promise<Enrolment> {
  const secret = newTotpSecret();
  const stored = await deps.twoFactor.putPendingTotp({
    user: viewer.user.id,
    secret,
    created: new Date(deps.now()).toISOString(),
    enabled_at: null,
    last_step: 0,
    recovery_hashes: [],
  });
  if (!stored) throw alreadyOn();
  const uri = totpUri(secret, viewer.user.email);
  return { secret, otpauth_uri: uri, qr_code: await qrCodeDataUrl(uri) };
}

/** The pending enrolment again (the page shown after a wrong confirmation code). */
export async function pendingEnrolment(
  deps: TwoFactorDeps,
  viewer: Viewer,
): Promise<Enrolment | undefined> {
  const record = await deps.twoFactor.getTotp(viewer.user.id);
  if (!record || record.enabled_at !== null) return undefined;
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
  const record = await deps.twoFactor.getTotp(viewer.user.id);
  if (record?.enabled_at) throw alreadyOn();
  if (!record) throw badInput("Start the set-up first (no enrolment is pending).", "code");
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
  const used = await useSecondFactor(deps, viewer.user, input.code);
  if (!used) throw wrongCode();
  await deps.twoFactor.deleteTotp(viewer.user.id);
  await auditAccount(deps, viewer.user, viewer.user.email, "user.2fa_disabled", { with: used });
  return await twoFactorStatus(deps, viewer.user.id);
}

/** New recovery codes for the old ones (all of them stop working), with a current code. */
export async function renewRecoveryCodes(
  deps: TwoFactorDeps,
  viewer: Viewer,
  code: string,
): Promise<{ recovery_codes: string[] }> {
  const record = await deps.twoFactor.getTotp(viewer.user.id);
  if (!record?.enabled_at) throw badInput("Two-factor sign-in is not on.", "code");
  const step = codeStep(record.secret, code, deps.now());
  if (step === undefined || !await deps.twoFactor.useTotpStep(viewer.user.id, step)) {
    throw wrongCode();
  }
  const { codes, hashes } = newRecoveryCodes();
  if (!await deps.twoFactor.replaceRecoveryCodes(viewer.user.id, hashes)) {
    throw badInput("Two-factor sign-in is not on.", "code");
  }
  await auditAccount(deps, viewer.user, viewer.user.email, "user.2fa_recovery_codes_renewed");
  return { recovery_codes: codes };
}
