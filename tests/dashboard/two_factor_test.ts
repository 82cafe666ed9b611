/**
 * Two-factor sign-in (TOTP, RFC 6238) through the JSON API, codes made by the test from the
 * secret with `otpauth`: enrolment confirmed by a code, the second step at sign-in (a code works
 * once, a recovery code once, wrong codes throttled), turning it off (password and code), and an
 * organization that requires it (members without it refused until they enrol).
 */
import assert from "node:assert/strict";
import * as OTPAuth from "otpauth";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";

type Harness = Awaited<ReturnType<typeof startDashboardHarness>>;

/** The code of `secret` at the dashboard's clock, `steps` periods ahead of it. */
function codeAt(d: Harness, secret: string, steps = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
  return totp.generate({ timestamp: Date.now() + d.clock.offset + steps * 30_000 });
}

/** Moves the dashboard's clock one step on (a code of the next period is a new code). */
function nextStep(d: Harness) {
  d.clock.offset += 30_000;
}

async function enrol(d: Harness, client: ApiClient): Promise<{ secret: string; codes: string[] }> {
  const setup = await client.post("/api/account/2fa/setup");
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  const secret: string = setup.body.secret;
  assert.match(setup.body.otpauth_uri, /^otpauth:\/\/totp\/Sovra:.+\?.*secret=/);
  assert.equal(new URL(setup.body.otpauth_uri).searchParams.get("secret"), secret);
  assert.match(setup.body.qr_code, /^data:image\/svg\+xml;base64,/);
  const done = await client.post("/api/account/2fa/confirm", { code: codeAt(d, secret) });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  return { secret, codes: done.body.recovery_codes };
}

async function passwordStep(base: string, email: string) {
  const client = new ApiClient(base);
  const res = await client.post("/api/login", { email, password: PASSWORD });
  return { client, res };
}

Deno.test("2fa — enrol with a confirming code; then sign-in needs a code, each code once", async () => {
  await using d = await startDashboardHarness();
  await d.user("ann@example.eu", d.h.org, "owner");
  const ann = await ApiClient.signedIn(d.url, "ann@example.eu");
  const setup = await ann.post("/api/account/2fa/setup");
  const wrong = await ann.post("/api/account/2fa/confirm", { code: "000000" });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error.param, "code");
  assert.equal((await ann.get("/api/account")).body.two_factor.enabled, false);
  const confirm = await ann.post("/api/account/2fa/confirm", {
    code: codeAt(d, setup.body.secret),
  });
  assert.equal(confirm.status, 200);
  const codes: string[] = confirm.body.recovery_codes;
  assert.equal(codes.length, 10);
  assert.equal(new Set(codes).size, 10);
  for (const c of codes) {
    assert.match(c, /^[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}$/);
  }
  const status = (await ann.get("/api/account")).body.two_factor;
  assert.deepEqual([status.enabled, status.recovery_codes_left], [true, 10]);
  assert.equal((await ann.post("/api/account/2fa/setup")).status, 409, "enrolled already");
  // The stored record holds hashes only.
  const stored = await d.dash.deps.twoFactor.getTotp((await ann.get("/api/session")).body.user.id);
  for (const c of codes) assert.ok(!stored!.recovery_hashes.includes(c));

  // The password alone makes no session.
  const { client, res } = await passwordStep(d.url, "ann@example.eu");
  assert.equal(res.status, 200);
  assert.equal(res.body.two_factor_required, true);
  assert.equal(res.body.user, undefined);
  assert.equal(client.cookie, "", "no session cookie yet");
  assert.equal((await client.get("/api/session")).status, 401);
  const bad = await client.post("/api/login/2fa", {
    challenge: res.body.challenge,
    code: "123456",
  });
  assert.equal(bad.status, 401);
  assert.equal(bad.body.error.code, "invalid_two_factor_code");
  // The enrolment's own code is spent: the same period's code does not sign in.
  const replay = await client.post("/api/login/2fa", {
    challenge: res.body.challenge,
    code: codeAt(d, setup.body.secret),
  });
  assert.equal(replay.status, 401, "a code works once");
  nextStep(d);
  const ok = await client.post("/api/login/2fa", {
    challenge: res.body.challenge,
    code: codeAt(d, setup.body.secret),
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.user.email, "ann@example.eu");
  assert.equal((await client.get("/api/session")).status, 200);
  // The challenge completed one sign-in; it does not make a second.
  const twice = await new ApiClient(d.url).post("/api/login/2fa", {
    challenge: res.body.challenge,
    code: codeAt(d, setup.body.secret, 1),
  });
  assert.equal(twice.status, 401);
  assert.equal(twice.body.error.code, "two_factor_expired");
  const audit = await ann.get(`/api/orgs/${d.h.org}/audit`);
  const actions = audit.body.data.map((e: { action: string }) => e.action);
  assert.ok(actions.includes("user.2fa_enabled"));
  assert.ok(actions.includes("login.2fa_failed"));
  assert.ok(!JSON.stringify(audit.body).includes(setup.body.secret), "never the secret");
});

Deno.test("2fa — a recovery code signs in once; wrong codes are throttled; a challenge expires", async () => {
  await using d = await startDashboardHarness();
  await d.user("ann@example.eu", d.h.org, "owner");
  const ann = await ApiClient.signedIn(d.url, "ann@example.eu");
  const { codes } = await enrol(d, ann);

  const first = await passwordStep(d.url, "ann@example.eu");
  const used = await first.client.post("/api/login/2fa", {
    challenge: first.res.body.challenge,
    code: codes[3]!.toUpperCase().replaceAll("-", " "),
  });
  assert.equal(used.status, 200, "case, spaces and dashes do not matter");
  assert.equal((await ann.get("/api/account")).body.two_factor.recovery_codes_left, 9);
  const second = await passwordStep(d.url, "ann@example.eu");
  const again = await second.client.post("/api/login/2fa", {
    challenge: second.res.body.challenge,
    code: codes[3]!,
  });
  assert.equal(again.status, 401, "a recovery code works once");

  const statuses = [];
  for (let i = 0; i < 10; i++) {
    const r = await second.client.post("/api/login/2fa", {
      challenge: second.res.body.challenge,
      code: String(100000 + i),
    });
    statuses.push(r.status);
  }
  // With the miss above: 10 tries per (account, address) and window, then 429.
  assert.deepEqual(statuses, [...Array(9).fill(401), 429]);

  const third = await passwordStep(d.url, "ann@example.eu");
  d.clock.offset += 5 * 60_000 + 1;
  const late = await third.client.post("/api/login/2fa", {
    challenge: third.res.body.challenge,
    code: codes[0]!,
  });
  assert.equal(late.status, 401);
  assert.equal(late.body.error.code, "two_factor_expired");
});

Deno.test("2fa — turning it off needs the password and a code; renewing codes voids the old ones", async () => {
  await using d = await startDashboardHarness();
  await d.user("ann@example.eu", d.h.org, "owner");
  const ann = await ApiClient.signedIn(d.url, "ann@example.eu");
  const { secret, codes } = await enrol(d, ann);
  nextStep(d);
  const renewed = await ann.post("/api/account/2fa/recovery-codes", { code: codeAt(d, secret) });
  assert.equal(renewed.status, 200);
  assert.equal(renewed.body.recovery_codes.length, 10);
  const oldCode = await ann.post("/api/account/2fa/disable", {
    password: PASSWORD,
    code: codes[0],
  });
  assert.equal(oldCode.status, 400, "the old recovery codes stopped working");
  nextStep(d);
  const noPassword = await ann.post("/api/account/2fa/disable", {
    password: "not it at all",
    code: codeAt(d, secret),
  });
  assert.equal(noPassword.status, 400);
  assert.equal(noPassword.body.error.param, "password");
  const off = await ann.post("/api/account/2fa/disable", {
    password: PASSWORD,
    code: renewed.body.recovery_codes[0],
  });
  assert.equal(off.status, 200, JSON.stringify(off.body));
  assert.equal(off.body.enabled, false);
  const { res } = await passwordStep(d.url, "ann@example.eu");
  assert.equal(res.body.two_factor_required, undefined, "a password signs in again");
  assert.equal(res.body.user.email, "ann@example.eu");
});

Deno.test("2fa — an organization that requires it sends members without it to enrol first", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("viewer@example.eu", d.h.org, "viewer");
  await d.user("elsewhere@example.eu", d.otherOrg, "viewer");
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const refused = await owner.json("PATCH", `/api/orgs/${d.h.org}/settings`, { require_2fa: true });
  assert.equal(refused.status, 400, "the owner's own session must satisfy it first");
  assert.equal(refused.body.error.param, "require_2fa");
  await enrol(d, owner);
  const set = await owner.json("PATCH", `/api/orgs/${d.h.org}/settings`, { require_2fa: true });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.equal(set.body.require_2fa, true);
  assert.equal((await owner.get(`/api/orgs/${d.h.org}/overview`)).status, 200);

  const viewer = await ApiClient.signedIn(d.url, "viewer@example.eu");
  const viewerElsewhere = await ApiClient.signedIn(d.url, "viewer@example.eu");
  const blocked = await viewer.get(`/api/orgs/${d.h.org}/overview`);
  assert.equal(blocked.status, 403);
  assert.equal(blocked.body.error.code, "two_factor_required");
  // The page sends the member to enrol.
  const page = await viewer.request("GET", `/orgs/${d.h.org}/keys`);
  assert.equal(page.status, 303);
  assert.equal(page.headers.get("location"), `/account?required=${d.h.org}`);
  await page.body?.cancel();
  await enrol(d, viewer);
  assert.equal((await viewer.get(`/api/orgs/${d.h.org}/overview`)).status, 200);
  // A session opened before the enrolment proved no code: it still does not reach the org.
  const older = await viewerElsewhere.get(`/api/orgs/${d.h.org}/overview`);
  assert.equal(older.status, 403);
  assert.equal(older.body.error.code, "two_factor_required");
  const members = await owner.get(`/api/orgs/${d.h.org}/members`);
  assert.deepEqual(
    members.body.data.map((m: { email: string; two_factor: boolean }) => [m.email, m.two_factor]),
    [["owner@example.eu", true], ["viewer@example.eu", true]],
  );
  // Another organization's members are not affected.
  const other = await ApiClient.signedIn(d.url, "elsewhere@example.eu");
  assert.equal((await other.get(`/api/orgs/${d.otherOrg}/overview`)).status, 200);
});
