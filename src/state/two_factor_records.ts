/**
 * What two-factor sign-in stores: a user's TOTP enrolment (RFC 6238) with its recovery codes,
 * and the password sign-ins waiting for their second step. Plain data.
 */

/** A user's TOTP enrolment: pending until a first code confirms it, then enabled. */
export interface TotpRecord {
  user: string;
  /**
   * The shared secret (base32, 160 bits), as stored: sealed (`sealed:v1:…`) when the instance
   * has `SOVRA_SECRET_KEY` (`sealed_two_factor.ts`), else as it is — checking a code needs it
   * back. Never shown again after enrolment, never logged.
   */
  secret: string;
  created: string;
  /** When a first code confirmed the enrolment; null while it is pending. */
  enabled_at: string | null;
  /**
   * The latest time step (Unix time / 30 s) a code was accepted for: a code works once, and
   * so does any earlier one (RFC 6238 §5.2). 0 before the first.
   */
  last_step: number;
  /** SHA-256 (hex) of each recovery code not used yet. */
  recovery_hashes: string[];
  /**
   * While pending: the session (its token's SHA-256) that started the enrolment, the only one
   * that sees the secret again or confirms it. Absent on records older than the field.
   */
  pending_session?: string;
}

/**
 * A sign-in whose password was right, waiting for the second step (a code or a recovery code)
 * for a few minutes. The token that names it is with the browser; the store keeps its hash.
 */
export interface SignInChallengeRecord {
  /** SHA-256 (hex) of the challenge token. */
  hash: string;
  user: string;
  created: string;
  expires: string;
  /** Where to go after signing in (a local path). */
  next: string;
}
