/**
 * Invitations over the JSON API: an invited account accepts or declines after signing in; the
 * link creates an account only for an e-mail that has none; inviting again revokes the older
 * link; owners list and revoke pending invitations; every step is in the audit log.
 */
import assert from "node:assert/strict";
import { runAdminCliWith } from "../helpers/api.ts";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

Deno.test("invitations — an existing account accepts after signing in; decline; another's id is 404", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@acme.test", d.h.org, "owner");
  await d.user("bob@bravo.test", d.otherOrg, "owner");
  await d.user("eve@acme.test", d.h.org, "viewer");
  const acme = await ApiClient.signedIn(d.url, "owner@acme.test");
  const bravo = await ApiClient.signedIn(d.url, "bob@bravo.test");
  const bravoOwner = await acme.post(`/api/orgs/${d.h.org}/members`, {
    email: "bob@bravo.test",
    role: "admin",
  });
  assert.equal(bravoOwner.status, 201);

  // The link does not act as Bob: it creates no account over his and sets no password.
  const viaLink = await new ApiClient(d.url).post("/api/invitations/create-account", {
    token: tokenOf(bravoOwner.body.invite_url),
    password: "somebody else's choice",
  });
  assert.equal(viaLink.status, 409);
  assert.equal(viaLink.body.error.code, "account_exists");
  assert.equal(
    (await new ApiClient(d.url).post("/api/login", {
      email: "bob@bravo.test",
      password: "somebody else's choice",
    })).status,
    401,
  );

  assert.equal((await bravo.get(`/api/orgs/${d.h.org}/overview`)).status, 404, "not yet a member");
  const pending = await bravo.get("/api/invitations");
  assert.equal(pending.status, 200);
  assert.deepEqual(
    pending.body.data.map((
      i: Record<string, unknown>,
    ) => [i.org, i.org_name, i.role, i.invited_by]),
    [[d.h.org, "Test org", "admin", "owner@acme.test"]],
  );
  const id = pending.body.data[0].id;
  const eve = await ApiClient.signedIn(d.url, "eve@acme.test");
  assert.equal((await eve.get("/api/invitations")).body.data.length, 0);
  assert.equal((await eve.post(`/api/invitations/${id}/accept`)).status, 404, "not Eve's");
  assert.equal((await eve.post(`/api/invitations/${id}/decline`)).status, 404);

  const accepted = await bravo.post(`/api/invitations/${id}/accept`);
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  assert.equal((await bravo.post(`/api/orgs/${d.h.org}/keys`, { name: "bob" })).status, 201);
  assert.equal((await bravo.post(`/api/invitations/${id}/accept`)).status, 404, "used");
  const orgs = await bravo.get("/api/orgs");
  assert.deepEqual(
    orgs.body.data.map((o: { id: string; role: string }) => [o.id, o.role]).sort(),
    [[d.h.org, "admin"], [d.otherOrg, "owner"]].sort(),
  );

  // Declining leaves no membership.
  await d.user("dan@elsewhere.test");
  await acme.post(`/api/orgs/${d.h.org}/members`, { email: "dan@elsewhere.test", role: "owner" });
  const dan = await ApiClient.signedIn(d.url, "dan@elsewhere.test");
  const danInvite = (await dan.get("/api/invitations")).body.data[0].id;
  const declined = await dan.post(`/api/invitations/${danInvite}/decline`);
  assert.equal(declined.status, 200);
  assert.deepEqual((await dan.get("/api/orgs")).body.data, []);
  assert.deepEqual((await dan.get("/api/invitations")).body.data, []);
  assert.deepEqual((await acme.get(`/api/orgs/${d.h.org}/invitations`)).body.data, []);

  const audit = (await acme.get(`/api/orgs/${d.h.org}/audit`)).body.data as {
    action: string;
    actor: string;
    target: string;
  }[];
  const lines = audit.map((e) => `${e.action} ${e.actor} ${e.target}`);
  for (
    const line of [
      "member.invited owner@acme.test bob@bravo.test",
      "invitation.accepted bob@bravo.test bob@bravo.test",
      "member.invited owner@acme.test dan@elsewhere.test",
      "invitation.declined dan@elsewhere.test dan@elsewhere.test",
    ]
  ) assert.ok(lines.includes(line), `${line} in ${lines.join("; ")}`);
  assert.ok(!JSON.stringify(audit).includes(tokenOf(bravoOwner.body.invite_url)));
});

Deno.test("invitations — the link creates a new e-mail's account once; a new invitation revokes the older link; owners revoke", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@acme.test", d.h.org, "owner");
  const acme = await ApiClient.signedIn(d.url, "owner@acme.test");
  const first = await acme.post(`/api/orgs/${d.h.org}/members`, {
    email: "New@Acme.test",
    role: "viewer",
  });
  const second = await acme.post(`/api/orgs/${d.h.org}/members`, {
    email: "new@acme.test",
    role: "admin",
  });
  assert.equal(second.status, 201);
  const listed = await acme.get(`/api/orgs/${d.h.org}/invitations`);
  assert.deepEqual(
    listed.body.data.map((i: { email: string; role: string }) => [i.email, i.role]),
    [["new@acme.test", "admin"]],
    "one pending invitation per e-mail",
  );
  const anon = new ApiClient(d.url);
  const stale = await anon.post("/api/invitations/create-account", {
    token: tokenOf(first.body.invite_url),
    password: PASSWORD,
  });
  assert.equal(stale.status, 400, "the older link was revoked");
  assert.equal(stale.body.error.param, "token");
  const short = await anon.post("/api/invitations/create-account", {
    token: tokenOf(second.body.invite_url),
    password: "short",
  });
  assert.equal(short.status, 400);
  assert.equal(short.body.error.param, "password");
  const made = await anon.post("/api/invitations/create-account", {
    token: tokenOf(second.body.invite_url),
    password: PASSWORD,
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.role, "admin");
  const again = await anon.post("/api/invitations/create-account", {
    token: tokenOf(second.body.invite_url),
    password: "a second person's password",
  });
  assert.equal(again.status, 400, "used");
  const newcomer = await ApiClient.signedIn(d.url, "new@acme.test");
  assert.equal((await newcomer.post(`/api/orgs/${d.h.org}/keys`, { name: "n" })).status, 201);

  const revokable = await acme.post(`/api/orgs/${d.h.org}/members`, {
    email: "later@acme.test",
    role: "viewer",
  });
  const inv = revokable.body.invitation;
  assert.equal(
    (await newcomer.json("DELETE", `/api/orgs/${d.h.org}/invitations/${inv}`)).status,
    403,
  );
  const revoked = await acme.json("DELETE", `/api/orgs/${d.h.org}/invitations/${inv}`);
  assert.equal(revoked.status, 200);
  const dead = await anon.post("/api/invitations/create-account", {
    token: tokenOf(revokable.body.invite_url),
    password: PASSWORD,
  });
  assert.equal(dead.status, 400);
  assert.equal(await d.dash.deps.accounts.findUserByEmail("later@acme.test"), undefined);

  // Links end after 7 days.
  const late = await acme.post(`/api/orgs/${d.h.org}/members`, {
    email: "late@acme.test",
    role: "viewer",
  });
  d.clock.offset += 7 * 86_400_000 + 1000;
  const expired = await anon.post("/api/invitations/create-account", {
    token: tokenOf(late.body.invite_url),
    password: PASSWORD,
  });
  assert.equal(expired.status, 400);
});

Deno.test("invitations — the operator's user create gives an existing account no link, only an invitation", async () => {
  await using d = await startDashboardHarness();
  await d.h.flushed();
  await d.user("bob@bravo.test", d.otherOrg, "owner");
  const env = { SOVRA_KV: d.h.kvPath, SOVRA_DASHBOARD_URL: d.url };
  const out = await runAdminCliWith(env, [
    "user",
    "create",
    "--email",
    "bob@bravo.test",
    "--org",
    d.h.org,
    "--role",
    "viewer",
  ]);
  assert.equal(out.code, 0, out.stderr);
  const printed = JSON.parse(out.stdout);
  assert.equal(printed.created_now, false);
  assert.equal(printed.set_password_url, null);
  assert.equal(printed.invitation.status, "pending");
  assert.equal(printed.invitation.role, "viewer");
  const bob = await ApiClient.signedIn(d.url, "bob@bravo.test");
  assert.equal((await bob.get(`/api/orgs/${d.h.org}/overview`)).status, 404);
  const [inv] = (await bob.get("/api/invitations")).body.data;
  assert.equal(inv.invited_by, "cli");
  assert.equal((await bob.post(`/api/invitations/${inv.id}/accept`)).status, 200);
  assert.equal((await bob.get(`/api/orgs/${d.h.org}/overview`)).status, 200);
});
