/**
 * Accounts made just in time by single sign-on. A provider may be bound by several
 * organizations, and whoever runs it can mint an identity claiming any verified e-mail: only an
 * e-mail domain rule (the binding organization vouching for that domain) makes an account, a
 * group rule never does, and the account made joins no other organization by invitation until
 * its e-mail is proven.
 */
import assert from "node:assert/strict";
import { FlowClient, refusalText, startSsoHarness } from "./sso_support.ts";
import { ApiClient } from "./support.ts";

Deno.test("sso account creation — a group rule makes no account; a domain rule's account accepts no other organization's invitation", async () => {
  await using s = await startSsoHarness();
  const d = s.d;
  // Evil Corp binds the shared provider with a group rule; its IdP claims an Acme e-mail.
  await s.bind({ groups: ["evil-staff = viewer"] }, d.otherOrg);
  s.idp.accounts.set("evil-1", {
    email: "newhire@acme.eu",
    email_verified: true,
    groups: ["evil-staff"],
  });
  const refused = await new FlowClient().signIn(s.url, "evil-1");
  assert.equal(refused.status, 403);
  assert.match(refusalText(refused), /no e-mail domain rule names acme\.eu/);
  assert.equal(await d.dash.deps.accounts.findUserByEmail("newhire@acme.eu"), undefined);

  // With a domain rule of its own for acme.eu the account is made — as Evil's member only.
  await s.bind({ domains: ["acme.eu = viewer"], groups: ["evil-staff = viewer"] }, d.otherOrg);
  const evil = new FlowClient();
  assert.equal((await evil.signIn(s.url, "evil-1")).status, 200);
  await d.user("owner@acme.eu", s.org, "owner");
  const owner = await ApiClient.signedIn(d.url, "owner@acme.eu");
  const inv = await owner.post(`/api/orgs/${s.org}/members`, {
    email: "newhire@acme.eu",
    role: "admin",
  });
  assert.equal(inv.status, 201);
  const pending = await evil.api(s.url, "/api/invitations");
  const id = pending.body.data.find((i: { org: string }) => i.org === s.org).id;
  const accepted = await evil.api(s.url, `/api/invitations/${id}/accept`, "POST", {});
  assert.equal(accepted.status, 403, JSON.stringify(accepted.body));
  assert.equal(accepted.body.error.code, "email_unverified");
  assert.equal(
    (await evil.api(s.url, `/api/orgs/${s.org}/keys`, "POST", { name: "e" })).status,
    404,
  );
});
