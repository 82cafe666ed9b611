/**
 * `sealedTwoFactorStore`'s `enableTotp` is still a compare-and-swap: a confirmation whose
 * enrolment was replaced meanwhile (started again elsewhere) does not turn two-factor sign-in on,
 * even though the caller's secret matched the record it read. The backend compares the stored
 * (sealed) form, which a new enrolment changes.
 */
import assert from "node:assert/strict";
import { KvTwoFactorStore } from "../../src/state/kv/two_factor.ts";
import { sealedTwoFactorStore } from "../../src/state/sealed_two_factor.ts";
import type { TwoFactorStore } from "../../src/state/two_factor_store.ts";
import { SecretBox } from "../../src/util/secret_box.ts";
import { newTotpSecret } from "../../src/dashboard/two_factor/totp.ts";

const T = "2026-11-20T08:00:00.000Z";
const pending = { created: T, enabled_at: null, last_step: 0, recovery_hashes: [] };

Deno.test("sealed two-factor — a confirmation races a new enrolment: the new one stays pending", async () => {
  using kv = await Deno.openKv(":memory:");
  const inner = new KvTwoFactorStore(kv);
  const box = new SecretBox(crypto.getRandomValues(new Uint8Array(32)), "totp secrets");
  const first = newTotpSecret();
  const second = newTotpSecret();
  let raceOnce = true;
  // The backend as the wrapper sees it: right after the wrapper's read of the record, another
  // session starts its own enrolment (through the same sealing).
  const racing: TwoFactorStore = {
    getTotp: (userId) => inner.getTotp(userId),
    putPendingTotp: (record) => inner.putPendingTotp(record),
    enableTotp: (...args) => inner.enableTotp(...args),
    useTotpStep: (userId, step) => inner.useTotpStep(userId, step),
    useRecoveryCode: (userId, hash) => inner.useRecoveryCode(userId, hash),
    replaceRecoveryCodes: (userId, hashes) => inner.replaceRecoveryCodes(userId, hashes),
    deleteTotp: (userId) => inner.deleteTotp(userId),
    createChallenge: (challenge) => inner.createChallenge(challenge),
    getChallenge: (hash) => inner.getChallenge(hash),
    takeChallenge: (hash) => inner.takeChallenge(hash),
  };
  racing.getTotp = async (userId) => {
    const record = await inner.getTotp(userId);
    if (raceOnce) {
      raceOnce = false;
      assert.ok(await sealed.putPendingTotp({ ...pending, user: userId, secret: second }));
    }
    return record;
  };
  const sealed = sealedTwoFactorStore(racing, box);
  assert.ok(await sealed.putPendingTotp({ ...pending, user: "usr_a", secret: first }));
  raceOnce = true;
  assert.equal(await sealed.enableTotp("usr_a", first, T, 1, []), false);
  const now = await sealed.getTotp("usr_a");
  assert.equal(now?.enabled_at, null, "still pending");
  assert.equal(now?.secret, second, "the later enrolment's secret");
  // Without a race the confirmation of the current enrolment goes through.
  assert.ok(await sealed.enableTotp("usr_a", second, T, 1, []));
});
