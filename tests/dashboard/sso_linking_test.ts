/**
 * Linking a single sign-on identity to an existing password account, against a phished
 * password: the link asks the account's own second factor too; an SSO session is a second
 * factor only in the organization bound to its provider; a new password cuts the links.
 */
import assert from "node:assert/strict";
import { FlowClient, startSsoHarness } from "./sso_support.ts";
import { ApiClient, enrolTwoFactor, nextCode, PASSWORD } from "./support.ts";

Deno.test("sso linking — a phished password does not link past TOTP; a provider bound elsewhere is no second factor; a password change unlinks", async () => {
  await using s = await startSsoHarness();
  const d = s.d;
  const deps = d.dash.deps;
  const enrol = (c: ApiClient) => enrolTwoFactor(d, c);
  // The provider is bound to another organization only.
  await s.bind({ domains: ["evil.test = viewer"] }, d.otherOrg);
  await d.user("owner@acme.eu", s.org, "owner");
  const doraId = await d.user("dora@acme.eu", s.org, "admin");
  const owner = await ApiClient.signedIn(d.url, "owner@acme.eu");
  await enrol(owner);
  const required = await owner.json("PATCH", `/api/orgs/${s.org}/settings`, { require_2fa: true });
  assert.equal(required.status, 200);
  const dora = await ApiClient.signedIn(d.url, "dora@acme.eu");
  const secret = await enrol(dora);

  // An identity claiming dora's e-mail, with her password: the code is asked, nothing linked.
  s.idp.accounts.set("attacker", { email: "dora@acme.eu", email_verified: true });
  const attacker = new FlowClient();
  const linkPage = await attacker.signIn(s.url, "attacker");
  const token = linkPage.html.match(/name="token" value="([\w-]+)"/)![1]!;
  const asked = await attacker.submit(`${s.url}/sso/link`, { token, password: PASSWORD });
  assert.equal(asked.status, 200);
  const challenge = asked.html.match(/name="challenge" value="([\w-]+)"/)?.[1];
  assert.ok(challenge, "a code is asked before linking");
  assert.equal((await attacker.api(s.url, "/api/session")).status, 401, "no session yet");
  const wrong = await attacker.submit(`${s.url}/sso/link/2fa`, {
    token,
    challenge,
    code: "000000",
  });
  assert.equal(wrong.status, 401);
  assert.deepEqual(await deps.sso.listIdentitiesOfUser(doraId), [], "nothing linked");

  // Dora herself links (she has the code).
  const linked = await attacker.submit(`${s.url}/sso/link/2fa`, {
    token,
    challenge,
    code: nextCode(d, secret),
  });
  assert.equal(linked.status, 200, linked.html.slice(0, 300));
  assert.equal((await deps.sso.listIdentitiesOfUser(doraId)).length, 1);
  assert.equal((await attacker.api(s.url, `/api/orgs/${s.org}/overview`)).status, 200);

  // A later sign-in through that provider asks nothing, so it is no second factor here.
  const again = new FlowClient();
  assert.equal((await again.signIn(s.url, "attacker")).status, 200);
  const overview = await again.api(s.url, `/api/orgs/${s.org}/overview`);
  assert.equal(overview.status, 403, JSON.stringify(overview.body));
  assert.equal(overview.body.error.code, "two_factor_required");

  // A password change cuts the link: the provider alone signs nobody in any more.
  const changed = await dora.post("/api/account/password", {
    current_password: PASSWORD,
    new_password: "a brand new password",
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.deepEqual(await deps.sso.listIdentitiesOfUser(doraId), []);
  const after = new FlowClient();
  const page = await after.signIn(s.url, "attacker");
  assert.match(page.html, /name="token"/, "the link page again");
  assert.equal((await after.api(s.url, "/api/session")).status, 401);
});

Deno.test("sso linking — Account security lists the linked sign-ins and unlinks one; an account without a password keeps its last", async () => {
  await using s = await startSsoHarness();
  const d = s.d;
  await s.bind({ domains: ["acme.eu = viewer"] });
  await d.user("ann@acme.eu", s.org, "admin");
  s.idp.accounts.set("ann", { email: "ann@acme.eu", email_verified: true });
  const browser = new FlowClient();
  const linkPage = await browser.signIn(s.url, "ann");
  const token = linkPage.html.match(/name="token" value="([\w-]+)"/)![1]!;
  assert.equal(
    (await browser.submit(`${s.url}/sso/link`, { token, password: PASSWORD })).status,
    200,
  );
  const ann = await ApiClient.signedIn(d.url, "ann@acme.eu");
  const listed = (await ann.get("/api/account")).body.sso_identities;
  assert.deepEqual(listed.map((i: { provider: string }) => i.provider), ["idp"]);
  const { issuer, subject } = listed[0];
  const page = await ann.request("GET", "/account");
  assert.match(await page.text(), /Unlink Test IdP/, "listed on Account security");

  // Another account cannot unlink it.
  const jit = new FlowClient();
  s.idp.accounts.set("jo", { email: "jo@acme.eu", email_verified: true });
  assert.equal((await jit.signIn(s.url, "jo")).status, 200);
  assert.equal(
    (await jit.api(s.url, "/api/account/sso/unlink", "POST", { issuer, subject })).status,
    404,
  );
  // The SSO-made account has no password: its only sign-in stays.
  const own = (await jit.api(s.url, "/api/account")).body.sso_identities[0];
  const kept = await jit.api(s.url, "/api/account/sso/unlink", "POST", {
    issuer: own.issuer,
    subject: own.subject,
  });
  assert.equal(kept.status, 400, JSON.stringify(kept.body));

  const unlinked = await ann.post("/api/account/sso/unlink", { issuer, subject });
  assert.equal(unlinked.status, 200, JSON.stringify(unlinked.body));
  assert.deepEqual(unlinked.body.sso_identities, []);
  const again = await new FlowClient().signIn(s.url, "ann");
  assert.match(again.html, /name="token"/, "the provider alone no longer signs ann in");
});
