/**
 * Getting back into an account, through the JSON API: changing the password while signed in
 * (the current one first; every other session ends), and a reset link by e-mail through a real
 * SMTP server on 127.0.0.1 — the same answer for an unknown e-mail, one-time links that revoke
 * the older ones, throttled requests, no link while single sign-on leaves a password of no use —
 * and, without SMTP, the operator's `admin user reset` (a real CLI process).
 */
import assert from "node:assert/strict";
import { runAdminCliWith } from "../helpers/api.ts";
import { linkIn, startSmtpCapture } from "../helpers/smtp_server.ts";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";
import { RESET_REQUESTS_PER_PAIR } from "../../src/dashboard/areas/password_reset.ts";

const NEW_PASSWORD = "a brand new passphrase 42";

Deno.test("password change — needs the current password, ends every other session, keeps this one", async () => {
  await using d = await startDashboardHarness();
  await d.user("ann@example.eu", d.h.org, "owner");
  const here = await ApiClient.signedIn(d.url, "ann@example.eu");
  const elsewhere = await ApiClient.signedIn(d.url, "ann@example.eu");
  const wrong = await here.post("/api/account/password", {
    current_password: "not the password",
    new_password: NEW_PASSWORD,
  });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error.param, "current_password");
  const short = await here.post("/api/account/password", {
    current_password: PASSWORD,
    new_password: "short",
  });
  assert.equal(short.status, 400);
  assert.equal(short.body.error.param, "new_password");
  assert.equal((await elsewhere.get("/api/session")).status, 200, "nothing changed yet");

  const changed = await here.post("/api/account/password", {
    current_password: PASSWORD,
    new_password: NEW_PASSWORD,
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal(changed.body.other_sessions_ended, true);
  assert.equal((await here.get("/api/session")).status, 200, "this browser stays signed in");
  assert.equal((await elsewhere.get("/api/session")).status, 401, "the other session ended");
  const old = await new ApiClient(d.url).post("/api/login", {
    email: "ann@example.eu",
    password: PASSWORD,
  });
  assert.equal(old.status, 401);
  await ApiClient.signedIn(d.url, "ann@example.eu", NEW_PASSWORD);
  const audit = await here.get(`/api/orgs/${d.h.org}/audit`);
  assert.ok(audit.body.data.some((e: { action: string }) => e.action === "user.password_changed"));
});

Deno.test("password change — the current-password check is throttled like a sign-in", async () => {
  await using d = await startDashboardHarness();
  await d.user("ann@example.eu", d.h.org, "owner");
  const here = await ApiClient.signedIn(d.url, "ann@example.eu");
  const statuses = [];
  for (let i = 0; i < 11; i++) {
    const r = await here.post("/api/account/password", {
      current_password: `guess number ${i}`,
      new_password: NEW_PASSWORD,
    });
    statuses.push(r.status);
  }
  // The sign-in just made used none of the 10 (a success hands its attempt back).
  assert.deepEqual(statuses, [...Array(10).fill(400), 429]);
});

Deno.test("password reset — a mailed one-time link; the same answer for an unknown e-mail; a new link revokes the old", async () => {
  await using smtp = await startSmtpCapture();
  await using d = await startDashboardHarness({
    env: { SOVRA_SMTP_URL: smtp.url, SOVRA_SMTP_FROM: "Sovra <noreply@sovra.test>" },
  });
  await d.user("bob@example.eu", d.h.org, "admin");
  const session = await ApiClient.signedIn(d.url, "bob@example.eu");
  const anon = new ApiClient(d.url);

  const known = await anon.post("/api/password-reset", { email: "Bob@Example.eu" });
  const unknown = await anon.post("/api/password-reset", { email: "nobody@example.eu" });
  assert.equal(known.status, 202);
  assert.deepEqual([unknown.status, unknown.body], [known.status, known.body]);
  assert.deepEqual(known.body, { requested: true });
  await d.dash.deps.background.idle();
  assert.deepEqual(smtp.mails.map((m) => m.to), [["bob@example.eu"]], "no mail for nobody");
  const first = linkIn(smtp.mails[0]!);
  assert.equal(first.origin, d.url);
  assert.equal(first.pathname, "/set-password");
  assert.equal(smtp.mails[0]!.from, "noreply@sovra.test");

  // A second request mints a new link: the first stops working.
  await anon.post("/api/password-reset", { email: "bob@example.eu" });
  await d.dash.deps.background.idle();
  const second = linkIn(smtp.mails[1]!);
  const stale = await anon.post("/api/set-password", {
    token: first.searchParams.get("token"),
    password: NEW_PASSWORD,
  });
  assert.equal(stale.status, 400);
  assert.equal(stale.body.error.param, "token");

  const set = await anon.post("/api/set-password", {
    token: second.searchParams.get("token"),
    password: NEW_PASSWORD,
  });
  assert.equal(set.status, 200);
  assert.equal((await session.get("/api/session")).status, 401, "every session ended");
  const again = await anon.post("/api/set-password", {
    token: second.searchParams.get("token"),
    password: "yet another passphrase",
  });
  assert.equal(again.status, 400, "the link works once");
  await ApiClient.signedIn(d.url, "bob@example.eu", NEW_PASSWORD);
  const audit = await d.dash.deps.control.listAudit(d.h.org, 50);
  assert.ok(audit.some((e) => e.action === "user.password_reset_requested"));
  const outside = await d.dash.deps.control.listAudit(null, 50);
  assert.ok(outside.some((e) => e.action === "user.password_set"));
});

Deno.test("password reset — throttled per e-mail and address (429), and at most 3 mails an hour per account", async () => {
  await using smtp = await startSmtpCapture();
  await using d = await startDashboardHarness({
    env: { SOVRA_SMTP_URL: smtp.url, SOVRA_SMTP_FROM: "noreply@sovra.test" },
  });
  await d.user("bob@example.eu", d.h.org, "viewer");
  const anon = new ApiClient(d.url);
  const statuses = [];
  for (let i = 0; i <= RESET_REQUESTS_PER_PAIR; i++) {
    statuses.push((await anon.post("/api/password-reset", { email: "bob@example.eu" })).status);
  }
  assert.deepEqual(statuses, [...Array(RESET_REQUESTS_PER_PAIR).fill(202), 429]);
  const unknownStatuses = [];
  for (let i = 0; i <= RESET_REQUESTS_PER_PAIR; i++) {
    unknownStatuses.push(
      (await anon.post("/api/password-reset", { email: "nobody@example.eu" })).status,
    );
  }
  assert.deepEqual(unknownStatuses, statuses, "an unknown e-mail is throttled alike");
  await d.dash.deps.background.idle();
  assert.equal(smtp.mails.length, 3, "the mailbox gets at most 3 an hour");
});

Deno.test("password reset — SSO-required members get the provider to use, owners (break-glass) a link", async () => {
  await using smtp = await startSmtpCapture();
  await using d = await startDashboardHarness({
    env: { SOVRA_SMTP_URL: smtp.url, SOVRA_SMTP_FROM: "noreply@sovra.test" },
  });
  await d.user("member@example.eu", d.h.org, "viewer");
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.dash.deps.sso.createProvider({
    id: "kc",
    name: "Acme Keycloak",
    issuer: "https://id.example.eu/realms/acme",
    client_id: "sovra",
    client_secret_env: "KC_SECRET",
    scopes: ["openid", "email"],
    redirect_url: `${d.url}/sso/callback`,
    groups_claim: "groups",
    email_verified_claim: "email_verified",
    created: new Date().toISOString(),
  });
  await d.dash.deps.sso.setBinding({
    org: d.h.org,
    provider: "kc",
    domains: [],
    groups: [],
    require_sso: true,
    updated: new Date().toISOString(),
  });
  const anon = new ApiClient(d.url);
  for (const email of ["member@example.eu", "owner@example.eu"]) {
    assert.equal((await anon.post("/api/password-reset", { email })).status, 202);
  }
  await d.dash.deps.background.idle();
  const member = smtp.mails.find((m) => m.to[0] === "member@example.eu")!;
  assert.match(member.text, /Sign in with Acme Keycloak/);
  assert.doesNotMatch(member.text, /token=/);
  const owner = smtp.mails.find((m) => m.to[0] === "owner@example.eu")!;
  assert.equal(linkIn(owner).pathname, "/set-password");
  const audit = await d.dash.deps.control.listAudit(d.h.org, 50);
  const refused = audit.find((e) => e.action === "user.password_reset_refused");
  assert.equal(refused?.detail.reason, "sso_required");
});

const cli = (kvPath: string, dashboardUrl: string, args: string[]) =>
  runAdminCliWith({ SOVRA_KV: kvPath, SOVRA_DASHBOARD_URL: dashboardUrl }, args);

Deno.test("password reset — without SMTP the dashboard says so (503) and `admin user reset` prints the link", async () => {
  await using d = await startDashboardHarness();
  await d.user("bob@example.eu", d.h.org, "admin");
  const session = await ApiClient.signedIn(d.url, "bob@example.eu");
  const asked = await new ApiClient(d.url).post("/api/password-reset", { email: "bob@example.eu" });
  assert.equal(asked.status, 503);
  assert.equal(asked.body.error.code, "password_reset_unavailable");

  const first = await cli(d.h.kvPath, d.url, ["user", "reset", "--email", "bob@example.eu"]);
  assert.equal(first.code, 0, first.stderr);
  const printed = JSON.parse(first.stdout);
  assert.equal(printed.email, "bob@example.eu");
  assert.ok(Date.parse(printed.expires) > Date.now());
  const second = JSON.parse(
    (await cli(d.h.kvPath, d.url, ["user", "reset", "--email", "bob@example.eu"])).stdout,
  );
  const anon = new ApiClient(d.url);
  const token = (url: string) => new URL(url).searchParams.get("token");
  const stale = await anon.post("/api/set-password", {
    token: token(printed.reset_url),
    password: NEW_PASSWORD,
  });
  assert.equal(stale.status, 400, "the newer link revoked this one");
  const set = await anon.post("/api/set-password", {
    token: token(second.reset_url),
    password: NEW_PASSWORD,
  });
  assert.equal(set.status, 200);
  assert.equal((await session.get("/api/session")).status, 401);
  await ApiClient.signedIn(d.url, "bob@example.eu", NEW_PASSWORD);

  const nobody = await cli(d.h.kvPath, d.url, ["user", "reset", "--email", "no@example.eu"]);
  assert.equal(nobody.code, 1);
  assert.match(JSON.parse(nobody.stderr).error, /No user/);
});
