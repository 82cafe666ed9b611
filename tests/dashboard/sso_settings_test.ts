/**
 * The JSON API of single sign-on's settings: operators add and remove providers (never seeing
 * a secret, only whether its variable is set), owners bind their organization (admins and
 * viewers may not), refusals name the field, a bound provider is not removable; the sign-in
 * page offers only providers some organization signs in with; every change is audited.
 */
import assert from "node:assert/strict";
import { ApiClient, startDashboardHarness } from "./support.ts";

const PROVIDER = {
  id: "kc-acme",
  name: "Acme Keycloak",
  issuer: "https://id.acme.eu/realms/acme",
  client_id: "sovra",
  client_secret_env: "ACME_KC_SECRET",
  scopes: ["openid", "email", "groups"],
  redirect_url: "https://dashboard.acme.eu/sso/callback",
};

Deno.test("sso settings — operators manage providers, owners bind them, others are refused", async () => {
  await using d = await startDashboardHarness({ env: { ACME_KC_SECRET: "kc-secret-value" } });
  await d.user("op@example.eu", undefined, undefined, true);
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("admin@example.eu", d.h.org, "admin");
  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const admin = await ApiClient.signedIn(d.url, "admin@example.eu");

  assert.equal((await owner.post("/api/sso/providers", PROVIDER)).status, 403);
  const bad = await op.post("/api/sso/providers", { ...PROVIDER, issuer: "http://id.acme.eu" });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.param, "issuer");
  const added = await op.post("/api/sso/providers", PROVIDER);
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.equal(added.body.client_secret_set, true);
  assert.ok(!JSON.stringify(added.body).includes("kc-secret-value"));
  assert.equal(
    (await op.post("/api/sso/providers", PROVIDER)).body.error.code,
    "sso_provider_exists",
  );
  const listed = await op.get("/api/sso/providers");
  assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), ["kc-acme"]);

  // Not bound yet: the sign-in page offers no button.
  const before = await (await fetch(`${d.url}/login`)).text();
  assert.doesNotMatch(before, /Sign in with Acme Keycloak/);

  const rules = {
    provider: "kc-acme",
    domains: [{ match: "Example.EU", role: "viewer" }],
    groups: [{ match: "/acme/admins", role: "admin" }],
    require_sso: true,
  };
  assert.equal((await admin.json("PUT", `/api/orgs/${d.h.org}/sso`, rules)).status, 403);
  assert.equal((await admin.get(`/api/orgs/${d.h.org}/sso`)).status, 403);
  const unknown = await owner.json("PUT", `/api/orgs/${d.h.org}/sso`, { provider: "nope" });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error.param, "provider");
  const bound = await owner.json("PUT", `/api/orgs/${d.h.org}/sso`, rules);
  assert.equal(bound.status, 200, JSON.stringify(bound.body));
  assert.deepEqual(bound.body.domains, [{ match: "example.eu", role: "viewer" }]);
  const view = await owner.get(`/api/orgs/${d.h.org}/sso`);
  assert.equal(view.body.binding.require_sso, true);
  assert.deepEqual(view.body.providers, [{ id: "kc-acme", name: "Acme Keycloak" }]);

  const after = await (await fetch(`${d.url}/login`)).text();
  assert.match(after, /href="\/sso\/start\?provider=kc-acme&amp;next=%2F"/);
  assert.match(after, /Sign in with Acme Keycloak/);

  const stillBound = await op.json("DELETE", "/api/sso/providers/kc-acme");
  assert.equal(stillBound.status, 409);
  assert.equal(stillBound.body.error.code, "sso_provider_bound");
  assert.equal((await owner.json("DELETE", `/api/orgs/${d.h.org}/sso`)).status, 200);
  assert.equal((await owner.json("DELETE", `/api/orgs/${d.h.org}/sso`)).status, 404);
  assert.equal((await op.json("DELETE", "/api/sso/providers/kc-acme")).status, 200);

  const orgAudit = (await d.dash.deps.control.listAudit(d.h.org, 10)).map((
    e,
  ) => [e.actor, e.action]);
  assert.deepEqual(orgAudit, [["owner@example.eu", "sso.unbound"], [
    "owner@example.eu",
    "sso.bound",
  ]]);
  const global = (await d.dash.deps.control.listAudit(null, 10))
    .filter((e) => e.action.startsWith("sso.")).map((e) => [e.actor, e.action, e.target]);
  assert.deepEqual(global, [
    ["op@example.eu", "sso.provider_removed", "kc-acme"],
    ["op@example.eu", "sso.provider_added", "kc-acme"],
  ]);
});
