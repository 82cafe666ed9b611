/** Members: owners invite (an invitation link), change roles, remove; the last owner stays. */
import assert from "node:assert/strict";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";

Deno.test("members — invitation link creates the account with the role; role change, removal, last owner kept", async () => {
  await using d = await startDashboardHarness();
  const ownerId = await d.user("owner@example.eu", d.h.org, "owner");
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const invite = await owner.post(`/api/orgs/${d.h.org}/members`, {
    email: "Dev@Example.eu",
    role: "admin",
  });
  assert.equal(invite.status, 201, JSON.stringify(invite.body));
  assert.equal(invite.body.email, "dev@example.eu");
  assert.equal(invite.body.status, "pending");
  const link = new URL(invite.body.invite_url);
  assert.equal(link.pathname, "/invite");
  const anon = new ApiClient(d.url);
  const made = await anon.post("/api/invitations/create-account", {
    token: link.searchParams.get("token"),
    password: PASSWORD,
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.role, "admin");
  const again = await owner.post(`/api/orgs/${d.h.org}/members`, {
    email: "dev@example.eu",
    role: "viewer",
  });
  assert.equal(again.status, 400, "already a member");
  const dev = await ApiClient.signedIn(d.url, "dev@example.eu");
  assert.equal((await dev.post(`/api/orgs/${d.h.org}/keys`, { name: "dev" })).status, 201);
  assert.equal(
    (await dev.get(`/api/orgs/${d.h.org}/members`)).status,
    403,
    "admins do not manage members",
  );

  const devId = made.body.user.id;
  const demote = await owner.json("PATCH", `/api/orgs/${d.h.org}/members/${devId}`, {
    role: "viewer",
  });
  assert.equal(demote.status, 200);
  assert.equal((await dev.post(`/api/orgs/${d.h.org}/keys`, { name: "x" })).status, 403);
  const badRole = await owner.json("PATCH", `/api/orgs/${d.h.org}/members/${devId}`, {
    role: "god",
  });
  assert.equal(badRole.status, 400);

  const lastDemote = await owner.json("PATCH", `/api/orgs/${d.h.org}/members/${ownerId}`, {
    role: "admin",
  });
  assert.equal(lastDemote.status, 409);
  assert.equal(lastDemote.body.error.code, "last_owner");
  const lastRemove = await owner.json("DELETE", `/api/orgs/${d.h.org}/members/${ownerId}`);
  assert.equal(lastRemove.status, 409);

  const promote = await owner.json("PATCH", `/api/orgs/${d.h.org}/members/${devId}`, {
    role: "owner",
  });
  assert.equal(promote.status, 200);
  assert.equal(
    (await owner.json("DELETE", `/api/orgs/${d.h.org}/members/${ownerId}`)).status,
    200,
    "with a second owner the first may leave",
  );
  assert.equal((await owner.get(`/api/orgs/${d.h.org}/overview`)).status, 404, "gone");

  const members = await dev.get(`/api/orgs/${d.h.org}/members`);
  assert.deepEqual(
    members.body.data.map((m: { email: string; role: string }) => [m.email, m.role]),
    [["dev@example.eu", "owner"]],
  );
  const audit = await dev.get(`/api/orgs/${d.h.org}/audit`);
  const actions = audit.body.data.map((e: { action: string }) => e.action);
  for (
    const a of ["member.invited", "invitation.accepted", "member.role_changed", "member.removed"]
  ) {
    assert.ok(actions.includes(a), a);
  }
  assert.ok(!JSON.stringify(audit.body).includes(link.searchParams.get("token")!));
});
