/**
 * What two-factor sign-in stores: a user's TOTP enrolment (RFC 6238) with its recovery codes,
 * and the password sign-ins waiting for their second step. Plain data.
 */

/** A user's TOTP enrolment: pending until a first code confirms it, then enabled. */
export interface TotpRecord {
  user: string;
  /**
   * The shared secret (base32, 160 bits). Kept in clear because checking a code needs it, as
   * the authenticator app keeps it; never shown again after enrolment, never logged.
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
