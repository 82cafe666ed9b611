/**
 * TOTP (RFC 6238) through `otpauth`: the parameters every authenticator app reads from an
 * `otpauth://` URI — SHA-1, 6 digits, 30-second steps — and a 160-bit secret (RFC 4226's
 * recommended length). A code is checked against the step it was made in and one step either
 * side (a phone clock 30 s off still works); the caller stores the step so no code, nor an
 * earlier one, is accepted twice (RFC 6238 §5.2).
 */
import * as OTPAuth from "otpauth";

const PERIOD_S = 30;
const DIGITS = 6;
/** Steps accepted before and after the current one. */
const WINDOW = 1;
const ISSUER = "Sovra";

/** A new shared secret, base32. */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

function totp(secret: string, label = ""): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label,
    algorithm: "SHA1",
    digits: DIGITS,
    period: PERIOD_S,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** The `otpauth://totp/Sovra:<email>?secret=…` URI an authenticator app enrols from. */
export function totpUri(secret: string, email: string): string {
  return totp(secret, email).toString();
}

/** The time step (Unix seconds / 30) of `now`. */
export function stepAt(now: number): number {
  return Math.floor(now / 1000 / PERIOD_S);
}

/**
 * The time step a 6-digit `code` belongs to (within one step of `now`), or undefined when the
 * code is not one of the secret's. Whitespace inside the code is ignored.
 */
export function codeStep(secret: string, code: string, now: number): number | undefined {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totp(secret).validate({ token, timestamp: now, window: WINDOW });
  return delta === null ? undefined : stepAt(now) + delta;
}

/** Whether the text looks like a TOTP code (6 digits) rather than a recovery code. */
export function looksLikeCode(text: string): boolean {
  return /^\d{6}$/.test(text.replace(/\s+/g, ""));
}
