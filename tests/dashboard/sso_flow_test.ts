/**
 * Single sign-on against a real OpenID provider on 127.0.0.1 (oidc-provider): just-in-time
 * membership from e-mail-domain and group rules, the highest matching role, roles following
 * the provider at every sign-in (a group removed → the role lost), memberships given by hand
 * left alone, linking to an existing password account only with its password, the test
 * sign-in (claims shown, nothing created), and sign-out offering the provider's end-session.
 */
import assert from "node:assert/strict";
import { FlowClient, PROVIDER, refusalText, startSsoHarness } from "./sso_support.ts";

Deno.test("sso — first sign-in with a matching domain rule creates the account and membership", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"] });
  s.idp.accounts.set("alice", { email: "Alice@acme.eu", email_verified: true, name: "Alice" });
  const browser = new FlowClient();
  const page = await browser.signIn(s.url, "alice", `/orgs/${s.org}/overview`);
  assert.equal(page.status, 200, page.html);
  assert.match(page.html, new RegExp(`url=/orgs/${s.org}/overview`));

  const session = await browser.api(s.url, "/api/session");
  assert.equal(session.status, 200);
  assert.equal(session.body.user.email, "alice@acme.eu");
  assert.equal(session.body.user.password_set, false);
  assert.deepEqual(
    session.body.memberships.map((m: { org: string; role: string }) => [m.org, m.role]),
    [[s.org, "viewer"]],
  );
  const deps = s.d.dash.deps;
  const user = (await deps.accounts.findUserByEmail("alice@acme.eu"))!;
  const [identity] = await deps.sso.listIdentitiesOfUser(user.id);
  assert.equal(identity?.issuer, s.idp.issuer);
  assert.equal(identity?.subject, "alice");
  assert.equal(identity?.provider, PROVIDER);
  assert.ok(await deps.sso.getManaged(s.org, user.id));
  const audit = await deps.control.listAudit(s.org, 10);
  const joined = audit.find((e) => e.action === "member.joined");
  assert.equal(joined?.target, "alice@acme.eu");
  assert.equal(joined?.detail.role, "viewer");
  assert.ok(audit.some((e) => e.action === "sso.signed_in"));
  assert.equal(refusalText(page), "");
});
