/** The Deno KV implementation of `TwoFactorStore`: version checks make each change atomic. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { TwoFactorStore } from "../two_factor_store.ts";
import type { SignInChallengeRecord, TotpRecord } from "../two_factor_records.ts";

export class KvTwoFactorStore implements TwoFactorStore {
  constructor(private readonly kv: Deno.Kv) {}

  async getTotp(userId: string): Promise<TotpRecord | undefined> {
    return (await this.kv.get<TotpRecord>(kvKeys.totp(userId))).value ?? undefined;
  }

  putPendingTotp(record: TotpRecord): Promise<boolean> {
    return this.#update(
      record.user,
      (current) => current?.enabled_at ? undefined : { ...record, enabled_at: null },
    );
  }

  enableTotp(
    userId: string,
    secret: string,
    at: string,
    step: number,
    recoveryHashes: string[],
  ): Promise<boolean> {
    return this.#update(
      userId,
      (current) =>
        current && current.enabled_at === null && current.secret === secret
          ? { ...current, enabled_at: at, last_step: step, recovery_hashes: recoveryHashes }
          : undefined,
    );
  }

  useTotpStep(userId: string, step: number): Promise<boolean> {
    return this.#update(
      userId,
      (current) =>
        current?.enabled_at && step > current.last_step
          ? { ...current, last_step: step }
          : undefined,
    );
  }

  useRecoveryCode(userId: string, hash: string): Promise<boolean> {
    return this.#update(
      userId,
      (current) =>
        current?.enabled_at && current.recovery_hashes.includes(hash)
          ? { ...current, recovery_hashes: current.recovery_hashes.filter((h) => h !== hash) }
          : undefined,
    );
  }

  replaceRecoveryCodes(userId: string, hashes: string[]): Promise<boolean> {
    return this.#update(
      userId,
      (current) => current?.enabled_at ? { ...current, recovery_hashes: hashes } : undefined,
    );
  }

  deleteTotp(userId: string): Promise<boolean> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<TotpRecord>(kvKeys.totp(userId));
        if (!current.value) return false;
        const result = await this.kv.atomic().check(current).delete(kvKeys.totp(userId)).commit();
        if (result.ok) return true;
      }
    });
  }

  async createChallenge(challenge: SignInChallengeRecord): Promise<void> {
    const expireIn = Math.max(1, Date.parse(challenge.expires) - Date.now());
    await withLockRetry(() =>
      this.kv.set(kvKeys.signInChallenge(challenge.hash), challenge, { expireIn })
    );
  }

  async getChallenge(hash: string): Promise<SignInChallengeRecord | undefined> {
    return (await this.kv.get<SignInChallengeRecord>(kvKeys.signInChallenge(hash))).value ??
      undefined;
  }

  takeChallenge(hash: string): Promise<SignInChallengeRecord | undefined> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<SignInChallengeRecord>(kvKeys.signInChallenge(hash));
        if (!current.value) return undefined;
        const result = await this.kv.atomic().check(current)
          .delete(kvKeys.signInChallenge(hash))
          .commit();
        if (result.ok) return current.value;
      }
    });
  }

  /**
   * Read, decide, write under the read's version: `change` answers the new record, or
   * undefined to leave it (false). A concurrent change makes the commit fail: read again.
   */
  #update(
    userId: string,
    change: (current: TotpRecord | undefined) => TotpRecord | undefined,
  ): Promise<boolean> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<TotpRecord>(kvKeys.totp(userId));
        const next = change(current.value ?? undefined);
        if (!next) return false;
        const result = await this.kv.atomic().check(current).set(kvKeys.totp(userId), next)
          .commit();
        if (result.ok) return true;
      }
    });
  }
}
