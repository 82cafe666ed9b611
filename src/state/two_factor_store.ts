/**
 * The two-factor area of the state: TOTP enrolments with their recovery codes, and sign-in
 * challenges (a password proven, the second step pending). Used by the dashboard and the admin
 * CLI, never by the request API. A backend must keep the semantics written on each method;
 * every "atomic" below holds under concurrent calls from any instance sharing the store.
 */
import type { SignInChallengeRecord, TotpRecord } from "./two_factor_records.ts";

export interface TwoFactorStore {
  getTotp(userId: string): Promise<TotpRecord | undefined>;
  /**
   * Stores a pending enrolment (`enabled_at` null), replacing a pending one of the user. False,
   * and nothing written, when the user has two-factor sign-in enabled.
   */
  putPendingTotp(record: TotpRecord): Promise<boolean>;
  /**
   * Enables the user's pending enrolment if its secret is `secret`, with `step` as the first
   * accepted time step and the recovery codes' hashes, in one atomic step. False when there is
   * no such pending enrolment (enabled meanwhile, replaced, removed).
   */
  enableTotp(
    userId: string,
    secret: string,
    at: string,
    step: number,
    recoveryHashes: string[],
  ): Promise<boolean>;
  /**
   * Accepts a code of time step `step`: true, and `last_step` becomes `step`, when the user has
   * two-factor sign-in enabled and `step` is later than `last_step`; else false and nothing
   * changes. Atomic: of concurrent calls with the same step at most one is true.
   */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  /**
   * Uses a recovery code: true and the hash removed when an enabled enrolment of the user holds
   * it; else false. Atomic: a code works once.
   */
  useRecoveryCode(userId: string, hash: string): Promise<boolean>;
  /** Replaces the recovery codes of the user's enabled enrolment; false when there is none. */
  replaceRecoveryCodes(userId: string, hashes: string[]): Promise<boolean>;
  /** Removes the user's enrolment, pending or enabled; false when there was none. */
  deleteTotp(userId: string): Promise<boolean>;

  // Sign-in challenges, by the SHA-256 of their token. The caller checks `expires`; the store
  // may forget one after it.
  createChallenge(challenge: SignInChallengeRecord): Promise<void>;
  getChallenge(hash: string): Promise<SignInChallengeRecord | undefined>;
  /** Returns and deletes the challenge in one atomic step (it completes one sign-in only). */
  takeChallenge(hash: string): Promise<SignInChallengeRecord | undefined>;
}
