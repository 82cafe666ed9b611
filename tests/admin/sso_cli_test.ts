/**
 * The admin CLI's single sign-on commands as a real subprocess on a KV file: a provider added
 * (its secret only named, a warning while the variable is unset), wrong input refused with
 * the field named, an organization bound with domain and group rules and "require SSO", a
 * bound provider not removable, unbinding, removal; every change audited as `cli`.
 */
import assert from "node:assert/strict";
import { jsonLines, runAdminCli, runAdminCliWith } from "../helpers/api.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { kvControlPlane } from "../../src/state/kv/control_plane.ts";

const one = (stdout: string) => {
  const lines = jsonLines(stdout);
  assert.equal(lines.length, 1, stdout);
  return lines[0]!;
};

Deno.test("admin CLI — sso provider add/list/remove, sso bind/show/unbind", async () => {
  await using tmp = await tempDir({ prefix: "sovra-sso-cli-" });
  const kv = `${tmp.path}/admin.kv`;
  const org = one((await runAdminCli(kv, ["org", "create", "--name", "Acme"])).stdout);
  const add = [
    "sso",
    "provider",
    "add",
    "--id",
    "keycloak-acme",
    "--name",
    "Acme Keycloak",
    "--issuer",
    "https://id.acme.eu/realms/acme",
    "--client-id",
    "sovra",
    "--client-secret-env",
    "ACME_OIDC_SECRET",
    "--scopes",
    "openid email profile groups",
  ];

  const wrong = await runAdminCli(kv, [...add, "--redirect-url", "https://dash.acme.eu/login"]);
  assert.equal(wrong.code, 1);
  assert.match(
    JSON.parse(wrong.stderr).error,
    /'redirect_url' must be the dashboard's \/sso\/callback/,
  );

  const added = await runAdminCli(kv, [
    ...add,
    "--redirect-url",
    "https://dash.acme.eu/sso/callback",
  ]);
  assert.equal(added.code, 0, added.stderr);
  const provider = one(added.stdout);
  assert.equal(provider.id, "keycloak-acme");
  assert.deepEqual(provider.scopes, ["openid", "email", "profile", "groups"]);
  assert.equal(provider.client_secret_env, "ACME_OIDC_SECRET");
  assert.equal(provider.client_secret_set, false);
  assert.equal(provider.groups_claim, "groups");
  assert.match(added.stderr, /ACME_OIDC_SECRET is not set here/);

  const bind = await runAdminCli(kv, [
    "sso",
    "bind",
    "--org",
    String(org.id),
    "--provider",
    "keycloak-acme",
    "--domain",
    "Acme.eu=viewer",
    "--group",
    "/acme/sovra-admins=admin",
    "--require-sso",
    "true",
  ]);
  assert.equal(bind.code, 0, bind.stderr);
  const binding = one(bind.stdout);
  assert.deepEqual(binding.domains, [{ match: "acme.eu", role: "viewer" }]);
  assert.deepEqual(binding.groups, [{ match: "/acme/sovra-admins", role: "admin" }]);
  assert.equal(binding.require_sso, true);

  const badRule = await runAdminCli(kv, [
    "sso",
    "bind",
    "--org",
    String(org.id),
    "--provider",
    "keycloak-acme",
    "--group",
    "staff=boss",
  ]);
  assert.equal(badRule.code, 1);
  assert.match(JSON.parse(badRule.stderr).error, /owner\|admin\|viewer/);

  // Break-glass: "require SSO" off alone, the rules kept.
  const off = await runAdminCli(kv, [
    "sso",
    "bind",
    "--org",
    String(org.id),
    "--require-sso",
    "false",
  ]);
  assert.equal(off.code, 0, off.stderr);
  assert.equal(one(off.stdout).require_sso, false);
  assert.deepEqual(one(off.stdout).groups, [{ match: "/acme/sovra-admins", role: "admin" }]);

  const bound = await runAdminCli(kv, ["sso", "provider", "remove", "--id", "keycloak-acme"]);
  assert.equal(bound.code, 1);
  assert.match(JSON.parse(bound.stderr).error, new RegExp(`still sign in .*${org.id}`));

  const listed = await runAdminCliWith(
    { SOVRA_KV: kv, ACME_OIDC_SECRET: "s3cret" },
    ["sso", "provider", "list"],
  );
  assert.equal(listed.code, 0, listed.stderr);
  const [row] = jsonLines(listed.stdout);
  assert.equal(row?.client_secret_set, true);
  assert.ok(!listed.stdout.includes("s3cret"));

  assert.equal((await runAdminCli(kv, ["sso", "unbind", "--org", String(org.id)])).code, 0);
  const shown = one((await runAdminCli(kv, ["sso", "show", "--org", String(org.id)])).stdout);
  assert.equal(shown.binding, null);
  const removed = await runAdminCli(kv, ["sso", "provider", "remove", "--id", "keycloak-acme"]);
  assert.equal(removed.code, 0, removed.stderr);

  const store = await openKvStore(kv);
  try {
    const { control } = kvControlPlane(store.kv);
    const orgActions = (await control.listAudit(String(org.id), 10)).map((
      e,
    ) => [e.actor, e.action]);
    assert.deepEqual(orgActions, [["cli", "sso.unbound"], ["cli", "sso.bound"], [
      "cli",
      "sso.bound",
    ]]);
    const global = (await control.listAudit(null, 10)).map((e) => e.action);
    assert.deepEqual(global, ["sso.provider_removed", "sso.provider_added"]);
  } finally {
    await store.close();
  }
});
