/**
 * TOTP secrets sealed at rest with `SOVRA_SECRET_KEY`: the store (and so an export or a database
 * dump) holds only the sealed form, enrolment and sign-in work through it, a secret stored before
 * the key was set still signs in, and a sealed secret without the key never counts as a factor.
 */
import assert from "node:assert/strict";
import { ApiClient, enrolTwoFactor, nextCode, PASSWORD, startDashboardHarness } from "./support.ts";
import { controlPlaneOf } from "../../src/state/kv/control_plane.ts";
import { newTotpSecret } from "../../src/dashboard/two_factor/totp.ts";

const KEY = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

type Harness = Awaited<ReturnType<typeof startDashboardHarness>>;

/** The store's own two-factor area, under the dashboard's sealing. */
function rawTwoFactor(d: Harness) {
  return controlPlaneOf(d.h.store)!.twoFactor;
}

async function signInWithCode(d: Harness, email: string, secret: string) {
  const client = new ApiClient(d.url);
  const first = await client.post("/api/login", { email, password: PASSWORD });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.two_factor_required, true);
  return await client.post("/api/login/2fa", {
    challenge: first.body.challenge,
    code: nextCode(d, secret),
  });
}

Deno.test("2fa sealed — with SOVRA_SECRET_KEY the store holds the secret sealed; enrolment and sign-in work", async () => {
  await using d = await startDashboardHarness({ env: { SOVRA_SECRET_KEY: KEY } });
  await d.user("ann@example.eu", d.h.org, "owner");
  const ann = await ApiClient.signedIn(d.url, "ann@example.eu");
  const secret = await enrolTwoFactor(d, ann);
  const userId = (await ann.get("/api/session")).body.user.id;
  const stored = await rawTwoFactor(d).getTotp(userId);
  assert.ok(stored?.enabled_at, "enabled");
  assert.match(stored.secret, /^sealed:v1:/);
  assert.ok(!stored.secret.includes(secret), "the secret is not in the store");
  assert.equal((await d.dash.deps.twoFactor.getTotp(userId))?.secret, secret, "opened for use");
  const ok = await signInWithCode(d, "ann@example.eu", secret);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

Deno.test("2fa sealed — an enrolment stored before the key was set still signs in", async () => {
  await using d = await startDashboardHarness({ env: { SOVRA_SECRET_KEY: KEY } });
  const userId = await d.user("bob@example.eu", d.h.org, "owner");
  const secret = newTotpSecret();
  const raw = rawTwoFactor(d);
  assert.ok(
    await raw.putPendingTotp({
      user: userId,
      secret,
      created: new Date().toISOString(),
      enabled_at: null,
      last_step: 0,
      recovery_hashes: [],
    }),
  );
  assert.ok(await raw.enableTotp(userId, secret, new Date().toISOString(), 0, []));
  const ok = await signInWithCode(d, "bob@example.eu", secret);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

Deno.test("2fa sealed — a sealed secret without the key is no factor: the sign-in fails, it is not let through", async () => {
  let sealedRecord;
  {
    await using d = await startDashboardHarness({ env: { SOVRA_SECRET_KEY: KEY } });
    await d.user("cy@example.eu", d.h.org, "owner");
    const cy = await ApiClient.signedIn(d.url, "cy@example.eu");
    const enrolled = await enrolTwoFactor(d, cy);
    const userId = (await cy.get("/api/session")).body.user.id;
    sealedRecord = { secret: enrolled, record: await rawTwoFactor(d).getTotp(userId) };
  }
  await using d = await startDashboardHarness();
  const userId = await d.user("cy@example.eu", d.h.org, "owner");
  const raw = rawTwoFactor(d);
  const record = { ...sealedRecord.record!, user: userId, enabled_at: null };
  assert.ok(await raw.putPendingTotp(record));
  assert.ok(await raw.enableTotp(userId, record.secret, new Date().toISOString(), 0, []));
  // The password step finds an enrolment it cannot open: an error (logged with the cause), and
  // neither a session nor a challenge.
  const client = new ApiClient(d.url);
  const refused = await client.post("/api/login", {
    email: "cy@example.eu",
    password: PASSWORD,
  });
  assert.equal(refused.status, 500, JSON.stringify(refused.body));
  assert.equal(refused.body.user, undefined);
  assert.equal(refused.body.challenge, undefined);
  assert.equal(client.cookie, "", "no session cookie");
  assert.equal((await client.get("/api/session")).status, 401);
});
