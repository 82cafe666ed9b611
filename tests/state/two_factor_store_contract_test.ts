/**
 * The two-factor area (`src/state/two_factor_store.ts`) against both backends, one set of
 * cases: a pending enrolment replaced until one is enabled (and only with its own secret), a
 * time step accepted once and never an earlier one (also under a race), recovery codes used
 * once (also under a race), and sign-in challenges taken exactly once.
 */
import assert from "node:assert/strict";
import { kvBackend, type Opened, pgBackend } from "./control_plane_backends.ts";
import type { TotpRecord } from "../../src/state/two_factor_records.ts";

const T = "2026-11-21T10:00:00.000Z";
/** Ahead of now (a backend may forget what has expired). */
const LATER = new Date(Date.now() + 3_600_000).toISOString();
const hash = (c: string) => c.repeat(64);

const pending = (user: string, secret: string): TotpRecord => ({
  user,
  secret,
  created: T,
  enabled_at: null,
  last_step: 0,
  recovery_hashes: [],
});

const cases: Array<[string, (o: Opened) => Promise<void>]> = [
  [
    "an enrolment is pending until its own secret is confirmed; then it stays",
    async ({ areas }) => {
      const s = areas.twoFactor;
      assert.equal(await s.getTotp("usr_1"), undefined);
      assert.equal(await s.putPendingTotp(pending("usr_1", "AAAA")), true);
      // A second setup replaces the pending one: the first secret no longer enables.
      assert.equal(await s.putPendingTotp(pending("usr_1", "BBBB")), true);
      assert.equal(await s.enableTotp("usr_1", "AAAA", T, 100, [hash("a")]), false);
      assert.equal(await s.useTotpStep("usr_1", 101), false, "a pending enrolment accepts no code");
      assert.equal(await s.enableTotp("usr_1", "BBBB", T, 100, [hash("a"), hash("b")]), true);
      assert.deepEqual(await s.getTotp("usr_1"), {
        user: "usr_1",
        secret: "BBBB",
        created: T,
        enabled_at: T,
        last_step: 100,
        recovery_hashes: [hash("a"), hash("b")],
      });
      assert.equal(await s.enableTotp("usr_1", "BBBB", T, 100, []), false, "enabled once");
      // An enabled enrolment is not replaced by a new setup.
      assert.equal(await s.putPendingTotp(pending("usr_1", "CCCC")), false);
      assert.equal((await s.getTotp("usr_1"))?.secret, "BBBB");
      assert.equal(await s.deleteTotp("usr_1"), true);
      assert.equal(await s.deleteTotp("usr_1"), false);
      assert.equal(await s.getTotp("usr_1"), undefined);
      assert.equal(await s.putPendingTotp(pending("usr_1", "CCCC")), true);
    },
  ],
  [
    "a time step is accepted once, an earlier one never, one winner in a race",
    async ({ areas }) => {
      const s = areas.twoFactor;
      await s.putPendingTotp(pending("usr_1", "AAAA"));
      await s.enableTotp("usr_1", "AAAA", T, 100, []);
      assert.equal(await s.useTotpStep("usr_1", 100), false, "the enrolment's own code");
      assert.equal(await s.useTotpStep("usr_1", 99), false);
      assert.equal(await s.useTotpStep("usr_1", 101), true);
      assert.equal(await s.useTotpStep("usr_1", 101), false, "replayed");
      const race = await Promise.all(Array.from({ length: 8 }, () => s.useTotpStep("usr_1", 102)));
      assert.equal(race.filter(Boolean).length, 1);
      assert.equal((await s.getTotp("usr_1"))?.last_step, 102);
      assert.equal(await s.useTotpStep("usr_nobody", 500), false);
    },
  ],
  ["recovery codes work once each, also when raced; replaced as a set", async ({ areas }) => {
    const s = areas.twoFactor;
    await s.putPendingTotp(pending("usr_1", "AAAA"));
    assert.equal(await s.useRecoveryCode("usr_1", hash("a")), false, "not enabled yet");
    await s.enableTotp("usr_1", "AAAA", T, 1, [hash("a"), hash("b"), hash("c")]);
    assert.equal(await s.useRecoveryCode("usr_1", hash("b")), true);
    assert.equal(await s.useRecoveryCode("usr_1", hash("b")), false);
    assert.equal(await s.useRecoveryCode("usr_1", hash("d")), false);
    const race = await Promise.all(
      Array.from({ length: 6 }, () => s.useRecoveryCode("usr_1", hash("a"))),
    );
    assert.equal(race.filter(Boolean).length, 1);
    assert.deepEqual((await s.getTotp("usr_1"))?.recovery_hashes, [hash("c")]);
    assert.equal(await s.replaceRecoveryCodes("usr_1", [hash("e"), hash("f")]), true);
    assert.equal(await s.useRecoveryCode("usr_1", hash("c")), false, "the old set is gone");
    assert.equal(await s.useRecoveryCode("usr_1", hash("f")), true);
    assert.equal(await s.replaceRecoveryCodes("usr_nobody", [hash("e")]), false);
  }],
  ["a sign-in challenge is read, then taken exactly once", async ({ areas }) => {
    const s = areas.twoFactor;
    const challenge = { hash: hash("9"), user: "usr_1", created: T, expires: LATER, next: "/" };
    await s.createChallenge(challenge);
    assert.deepEqual(await s.getChallenge(challenge.hash), challenge);
    assert.deepEqual(await s.getChallenge(challenge.hash), challenge, "reading keeps it");
    const race = await Promise.all(
      Array.from({ length: 6 }, () => s.takeChallenge(challenge.hash)),
    );
    assert.deepEqual(race.filter(Boolean), [challenge]);
    assert.equal(await s.getChallenge(challenge.hash), undefined);
    assert.equal(await s.takeChallenge(hash("8")), undefined);
  }],
];

for (const make of [kvBackend, pgBackend]) {
  const name = make === kvBackend ? "kv" : "postgres";
  Deno.test(`two-factor store contract (${name})`, async (t) => {
    await using backend = await make();
    for (const [title, run] of cases) {
      await t.step(title, async () => {
        const opened = await backend.open();
        try {
          await run(opened);
        } finally {
          await opened.store.close();
        }
      });
    }
  });
}
