/**
 * A `TwoFactorStore` whose enrolment secrets are sealed at rest (`util/secret_box.ts`, the key
 * `SOVRA_SECRET_KEY`): the backend stores and exports only the sealed form, callers see the
 * secret. Without a key secrets are stored as they are; a secret stored before a key was set is
 * read as it is and sealed by its next enrolment. A sealed secret met without a key is an error
 * that says so (the key was removed from the configuration).
 */
import { openStored, sealStored, type SecretBox } from "../util/secret_box.ts";
import type { TwoFactorStore } from "./two_factor_store.ts";
import type { TotpRecord } from "./two_factor_records.ts";

export function sealedTwoFactorStore(
  store: TwoFactorStore,
  box: SecretBox | undefined,
): TwoFactorStore {
  // Each secret is sealed for its user: one copied to another user's record does not open.
  const opened = async (record: TotpRecord | undefined) =>
    record && { ...record, secret: await openStored(box, record.secret, record.user) };
  return {
    getTotp: async (userId) => await opened(await store.getTotp(userId)),
    putPendingTotp: async (record) =>
      await store.putPendingTotp({
        ...record,
        secret: await sealStored(box, record.secret, record.user),
      }),
    // The backend compares stored forms: the caller's secret is matched against the stored
    // record's opened one, then that record's own sealed form is what the backend compares.
    enableTotp: async (userId, secret, at, step, recoveryHashes) => {
      const stored = await store.getTotp(userId);
      if (!stored || await openStored(box, stored.secret, userId) !== secret) return false;
      return await store.enableTotp(userId, stored.secret, at, step, recoveryHashes);
    },
    useTotpStep: (userId, step) => store.useTotpStep(userId, step),
    useRecoveryCode: (userId, hash) => store.useRecoveryCode(userId, hash),
    replaceRecoveryCodes: (userId, hashes) => store.replaceRecoveryCodes(userId, hashes),
    deleteTotp: (userId) => store.deleteTotp(userId),
    createChallenge: (challenge) => store.createChallenge(challenge),
    getChallenge: (hash) => store.getChallenge(hash),
    takeChallenge: (hash) => store.takeChallenge(hash),
  };
}
