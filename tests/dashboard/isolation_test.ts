/**
 * Isolation: every organization route answers 404 for an organization the viewer is not a
 * member of (never data), ids of another organization's keys and members are 404 too, and
 * every route needs a session.
 */
import assert from "node:assert/strict";
import { ApiClient, startDashboardHarness } from "./support.ts";

/** Every organization-scoped route of the JSON API, with a valid body. */
const ORG_ROUTES: Array<[string, string, unknown?]> = [
  ["GET", "/overview"],
  ["GET", "/keys"],
  ["POST", "/keys", { name: "stolen" }],
  ["POST", "/keys/KEY/revoke", {}],
  ["GET", "/keys/KEY/policy"],
  ["PUT", "/keys/KEY/policy", { zdr_only: true }],
  ["GET", "/credits"],
  ["POST", "/credits/grants", { amount_micro_eur: 1_000_000 }],
  ["PATCH", "/settings", { low_balance_micro_eur: 1 }],
  ["GET", "/usage?days=7"],
  ["GET", "/requests"],
  ["GET", "/requests.csv"],
  ["GET", "/members"],
  ["POST", "/members", { email: "spy@example.eu", role: "owner" }],
  ["PATCH", "/members/USER", { role: "viewer" }],
  ["DELETE", "/members/USER"],
  ["GET", "/invitations"],
  ["DELETE", "/invitations/INV"],
  ["GET", "/audit"],
  ["GET", "/sso"],
  ["PUT", "/sso", { provider: "idp", domains: [{ match: "example.eu", role: "owner" }] }],
  ["DELETE", "/sso"],
];
const PAGES = ["overview", "keys", "usage", "credits", "members", "sso", "audit"];

Deno.test("isolation — another organization's id is 404 on every route and page, for every role", async () => {
  await using d = await startDashboardHarness();
  const otherOwner = await d.user("owner-b@example.eu", d.otherOrg, "owner");
  const otherKey = await d.h.admin(["key", "create"], { org: d.otherOrg, name: "b-key" });
  const otherInvite = await ApiClient.signedIn(d.url, "owner-b@example.eu").then((b) =>
    b.post(`/api/orgs/${d.otherOrg}/members`, { email: "guest@example.eu", role: "viewer" })
  );
  assert.equal(otherInvite.status, 201);
  for (const role of ["owner", "admin", "viewer"] as const) {
    const email = `${role}-a@example.eu`;
    await d.user(email, d.h.org, role);
    const c = await ApiClient.signedIn(d.url, email);
    for (const [method, path, body] of ORG_ROUTES) {
      const concrete = path.replace("KEY", String(otherKey.id)).replace("USER", otherOwner)
        .replace("INV", otherInvite.body.invitation);
      const res = await c.request(method, `/api/orgs/${d.otherOrg}${concrete}`, body);
      const text = await res.text();
      assert.equal(res.status, 404, `${role} ${method} ${concrete}: ${text}`);
      assert.equal(JSON.parse(text).error.code, "not_found");
      assert.ok(!text.includes("Other org") && !text.includes("b-key"));
    }
    for (const page of PAGES) {
      const res = await c.request("GET", `/orgs/${d.otherOrg}/${page}`);
      const html = await res.text();
      assert.equal(res.status, 404, `${role} page ${page}`);
      assert.ok(!html.includes("Other org"));
    }
  }
  // The other org's key is untouched and still active.
  const keys = await d.h.store.listApiKeys(d.otherOrg);
  assert.equal(keys.length, 1);
  assert.equal(keys[0]!.revoked, false);
  assert.equal((await d.dash.deps.accounts.listMembersOfOrg(d.otherOrg)).length, 1);
  assert.equal((await d.dash.deps.accounts.listInvitationsOfOrg(d.otherOrg)).length, 1);
  assert.equal((await d.h.store.getOrg(d.otherOrg))!.balance_micro_eur, 5_000_000);
});

Deno.test("isolation — ids of another organization's keys and members inside one's own org are 404", async () => {
  await using d = await startDashboardHarness();
  const otherOwner = await d.user("owner-b@example.eu", d.otherOrg, "owner");
  const otherKey = await d.h.admin(["key", "create"], { org: d.otherOrg, name: "b-key" });
  await d.user("owner-a@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner-a@example.eu");
  const revoke = await c.post(`/api/orgs/${d.h.org}/keys/${otherKey.id}/revoke`);
  assert.equal(revoke.status, 404);
  const role = await c.json("PATCH", `/api/orgs/${d.h.org}/members/${otherOwner}`, {
    role: "viewer",
  });
  assert.equal(role.status, 404);
  const remove = await c.json("DELETE", `/api/orgs/${d.h.org}/members/${otherOwner}`);
  assert.equal(remove.status, 404);
  const b = await ApiClient.signedIn(d.url, "owner-b@example.eu");
  const inv = await b.post(`/api/orgs/${d.otherOrg}/members`, {
    email: "g@example.eu",
    role: "owner",
  });
  const revokeInv = await c.json(
    "DELETE",
    `/api/orgs/${d.h.org}/invitations/${inv.body.invitation}`,
  );
  assert.equal(revokeInv.status, 404, "another organization's invitation");
  assert.equal((await d.dash.deps.accounts.listInvitationsOfOrg(d.otherOrg)).length, 1);
  const page = await fetch(`${d.url}/orgs/${d.h.org}/keys/${otherKey.id}/revoke`, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie: c.cookie,
      origin: d.url,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "",
  });
  assert.equal(page.status, 404, "the page's form action checks the same way");
  await page.body?.cancel();
  const keyPolicy = await c.json("PUT", `/api/orgs/${d.h.org}/keys/${otherKey.id}/policy`, {
    zdr_only: true,
  });
  assert.equal(keyPolicy.status, 404);
  const keyPolicyPage = await c.request("GET", `/orgs/${d.h.org}/policies/keys/${otherKey.id}`);
  assert.equal(keyPolicyPage.status, 404);
  await keyPolicyPage.body?.cancel();
  assert.equal(await d.h.store.getKeyPolicy(String(otherKey.id)), undefined);
  assert.equal((await d.h.store.listApiKeys(d.otherOrg))[0]!.revoked, false);
  assert.equal((await d.dash.deps.accounts.getMembership(d.otherOrg, otherOwner))?.role, "owner");
});

Deno.test("isolation — without a session every API route is 401 and every page redirects to sign-in", async () => {
  await using d = await startDashboardHarness();
  const c = new ApiClient(d.url);
  const routes: Array<[string, string, unknown?]> = [
    ["GET", "/api/session"],
    ["POST", "/api/logout", {}],
    ["GET", "/api/orgs"],
    ["GET", "/api/operator/orgs"],
    ["POST", "/api/operator/orgs", { name: "x" }],
    ["GET", "/api/operator/audit"],
    ["GET", "/api/invitations"],
    ["POST", "/api/invitations/inv_x/accept", {}],
    ["POST", "/api/invitations/inv_x/decline", {}],
    ["GET", "/api/sso/providers"],
    ["DELETE", "/api/sso/providers/idp"],
    ...ORG_ROUTES.map((
      [m, p, b],
    ): [string, string, unknown?] => [m, `/api/orgs/${d.h.org}${p}`, b]),
  ];
  for (const [method, path, body] of routes) {
    const res = await c.request(method, path, body);
    const text = await res.text();
    assert.equal(res.status, 401, `${method} ${path}: ${text}`);
    assert.equal(JSON.parse(text).error.code, "not_authenticated");
  }
  for (
    const page of [
      "/",
      "/operator",
      "/invitations",
      "/operator/sso",
      ...PAGES.map((p) => `/orgs/${d.h.org}/${p}`),
    ]
  ) {
    const res = await c.request("GET", page);
    assert.equal(res.status, 303, page);
    assert.match(res.headers.get("location") ?? "", /^\/login/);
    await res.body?.cancel();
  }
});
