/**
 * Organizations that require single sign-on: a member's password no longer signs them in
 * (the page and the JSON API say which provider to use, and no session is created); a password
 * session reaches no such organization, even one opened before the switch; owners keep their
 * password as the break-glass way in, and every such sign-in is audited; a member in another
 * organization too still signs in with a password there.
 */
import assert from "node:assert/strict";
import { FlowClient, startSsoHarness } from "./sso_support.ts";
import { PASSWORD } from "./support.ts";

async function passwordSignIn(base: string, email: string) {
  const browser = new FlowClient();
  const page = await browser.submit(`${base}/login`, { email, password: PASSWORD, next: "/" });
  return { browser, page };
}

Deno.test("sso required — a member's password is refused with the provider to use; nothing is created", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"], require_sso: true });
  await s.d.user("member@acme.eu", s.org, "viewer");
  const before = await s.snapshot();

  const { page } = await passwordSignIn(s.url, "member@acme.eu");
  assert.equal(page.status, 403);
  assert.match(page.html, /Your organization requires single sign-on/);
  assert.match(page.html, /Sign in with Test IdP/);
  const api = await new FlowClient().api(s.url, "/api/login", "POST", {
    email: "member@acme.eu",
    password: PASSWORD,
  });
  assert.equal(api.status, 403);
  assert.equal(api.body.error.code, "sso_required");
  assert.equal(await s.snapshot(), before, "no session");
  const refused = (await s.d.dash.deps.control.listAudit(s.org, 10))
    .filter((e) => e.action === "sso.password_refused");
  assert.equal(refused.length, 2);

  // A wrong password still gets the ordinary answer (the rule is no account oracle).
  const wrong = await new FlowClient().api(s.url, "/api/login", "POST", {
    email: "member@acme.eu",
    password: "not the password",
  });
  assert.equal(wrong.status, 401);

  // Through the provider, the same member gets in (linking with the password once).
  s.idp.accounts.set("member", { email: "member@acme.eu", email_verified: true });
  const browser = new FlowClient();
  const link = await browser.signIn(s.url, "member");
  const token = link.html.match(/name="token" value="([\w-]+)"/)![1]!;
  assert.equal(
    (await browser.submit(`${s.url}/sso/link`, { token, password: PASSWORD })).status,
    200,
  );
  assert.equal((await browser.api(s.url, `/api/orgs/${s.org}/overview`)).status, 200);
});

Deno.test("sso required — owners keep the password (break-glass, audited); a password session opened earlier loses the organization", async () => {
  await using s = await startSsoHarness();
  await s.d.user("owner@acme.eu", s.org, "owner");
  await s.d.user("early@acme.eu", s.org, "admin");
  const early = new FlowClient();
  assert.equal(
    (await early.api(s.url, "/api/login", "POST", { email: "early@acme.eu", password: PASSWORD }))
      .status,
    200,
  );
  assert.equal((await early.api(s.url, `/api/orgs/${s.org}/overview`)).status, 200);

  await s.bind({ domains: ["acme.eu = viewer"], require_sso: true });
  assert.equal((await early.api(s.url, `/api/orgs/${s.org}/overview`)).status, 404);
  assert.deepEqual((await early.api(s.url, "/api/orgs")).body.data, []);

  const { browser, page } = await passwordSignIn(s.url, "owner@acme.eu");
  assert.equal(page.status, 200);
  assert.match(page.url, new RegExp(`/orgs/${s.org}/overview$`));
  assert.equal((await browser.api(s.url, `/api/orgs/${s.org}/sso`)).body.binding.require_sso, true);
  const glass = (await s.d.dash.deps.control.listAudit(s.org, 10))
    .filter((e) => e.action === "sso.break_glass");
  assert.deepEqual(glass.map((e) => e.actor), ["owner@acme.eu"]);
});

Deno.test("sso required — a member of another organization still signs in there with a password", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"], require_sso: true });
  const id = await s.d.user("both@acme.eu", s.org, "viewer");
  await s.d.dash.deps.accounts.addMembership({
    org: s.d.otherOrg,
    user: id,
    role: "viewer",
    created: new Date().toISOString(),
  });
  const { browser, page } = await passwordSignIn(s.url, "both@acme.eu");
  assert.equal(page.status, 200);
  const orgs = (await browser.api(s.url, "/api/orgs")).body.data.map((o: { id: string }) => o.id);
  assert.deepEqual(orgs, [s.d.otherOrg]);
  assert.equal((await browser.api(s.url, `/api/orgs/${s.org}/overview`)).status, 404);
});
