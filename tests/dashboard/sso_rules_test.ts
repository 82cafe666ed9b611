/**
 * The pure parts of single sign-on: what Sovra reads from the claims (the e-mail only when the
 * provider's verification claim is true, with the claim names the provider uses, e.g. Entra
 * ID's `xms_edov`), the role the rules give (exact domain, exact group, the highest role), and
 * the validation of a provider's settings and of rules, each refusal naming its field.
 */
import assert from "node:assert/strict";
import { roleFor, summariseClaims } from "../../src/dashboard/sso/role_mapping.ts";
import { parseRules, providerFromInput } from "../../src/dashboard/areas/sso_settings.ts";
import { GatewayError } from "../../src/errors.ts";
import type { SsoBindingRecord } from "../../src/state/sso_records.ts";

const T = "2026-11-21T10:00:00.000Z";
const base = {
  id: "entra-acme",
  issuer: "https://login.microsoftonline.com/0b5c2f0e-1111-2222-3333-444455556666/v2.0",
  client_id: "6731de76-14a6-49ae-97bc-6eba6914391e",
  client_secret_env: "ENTRA_CLIENT_SECRET",
  redirect_url: "https://dashboard.acme.eu/sso/callback",
};
const provider = providerFromInput(base, T);

Deno.test("summariseClaims — the e-mail is trusted only when the verification claim is true", () => {
  const s = (claims: Record<string, unknown>) => summariseClaims(provider, claims);
  assert.deepEqual(s({ email: "Ann@Acme.EU", email_verified: true, groups: ["a", 7, "b"] }), {
    email: "ann@acme.eu",
    email_verified: true,
    groups: ["a", "b"],
  });
  assert.equal(s({ email: "ann@acme.eu", email_verified: "true" }).email_verified, true);
  for (const flag of [false, "false", 1, "yes", null, undefined]) {
    assert.equal(
      s({ email: "ann@acme.eu", email_verified: flag }).email_verified,
      false,
      String(flag),
    );
  }
  assert.deepEqual(s({ email_verified: true }), { email: null, email_verified: false, groups: [] });
  assert.deepEqual(s({ email: "ann@acme.eu", groups: "solo" }).groups, ["solo"]);

  const entra = providerFromInput(
    { ...base, groups_claim: "roles", email_verified_claim: "xms_edov" },
    T,
  );
  const claims = { email: "ann@acme.eu", email_verified: false, xms_edov: true, roles: ["R"] };
  assert.deepEqual(summariseClaims(entra, claims), {
    email: "ann@acme.eu",
    email_verified: true,
    groups: ["R"],
  });
});

Deno.test("roleFor — exact verified domain or exact group; the highest role of the matches", () => {
  const binding: SsoBindingRecord = {
    org: "org_a",
    provider: "entra-acme",
    domains: [{ match: "acme.eu", role: "viewer" }],
    groups: [{ match: "g-admins", role: "admin" }, { match: "g-owners", role: "owner" }],
    require_sso: false,
    updated: T,
  };
  const claims = (email: string | null, verified: boolean, groups: string[] = []) => ({
    email,
    email_verified: verified,
    groups,
  });
  assert.deepEqual(roleFor(binding, claims("a@acme.eu", true)), {
    role: "viewer",
    because: ["domain acme.eu → viewer"],
  });
  assert.equal(roleFor(binding, claims("a@acme.eu", false)), null, "unverified");
  assert.equal(roleFor(binding, claims("a@sub.acme.eu", true)), null, "no subdomains");
  assert.equal(roleFor(binding, claims("a@notacme.eu", true)), null);
  assert.equal(roleFor(binding, claims("a@x.eu", true, ["G-ADMINS"])), null, "groups are exact");
  assert.equal(
    roleFor(binding, claims("a@acme.eu", true, ["g-owners", "g-admins"]))?.role,
    "owner",
  );
  assert.equal(roleFor(binding, claims(null, false, ["g-admins"]))?.role, "admin");
});

Deno.test("parseRules — 'match = role' lines or commas; domains lower-cased; bad rules named", () => {
  assert.deepEqual(parseRules("Acme.EU = admin\n@sub.acme.eu=viewer", "domain"), [
    { match: "acme.eu", role: "admin" },
    { match: "sub.acme.eu", role: "viewer" },
  ]);
  assert.deepEqual(parseRules(["team=a=b = owner"], "group"), [{
    match: "team=a=b",
    role: "owner",
  }]);
  assert.deepEqual(parseRules("", "group"), []);
  for (
    const [raw, kind] of [["acme.eu", "domain"], ["acme.eu = boss", "domain"], [
      "not a domain = viewer",
      "domain",
    ], ["= admin", "group"]] as const
  ) {
    assert.throws(
      () => parseRules(raw, kind),
      (e) => e instanceof GatewayError && e.status === 400 && e.param === `${kind}s`,
      raw,
    );
  }
  assert.throws(() => parseRules(Array(101).fill("g = viewer"), "group"), /At most 100/);
});

Deno.test("providerFromInput — defaults, and each wrong setting refused with its field", () => {
  assert.deepEqual(provider.scopes, ["openid", "email", "profile"]);
  assert.equal(provider.name, "entra-acme");
  assert.equal(provider.groups_claim, "groups");
  assert.equal(provider.email_verified_claim, "email_verified");
  assert.deepEqual(providerFromInput({ ...base, scopes: "email, groups" }, T).scopes, [
    "openid",
    "email",
    "groups",
  ]);
  // Plain http only on a loopback address (a provider on the same host).
  assert.equal(
    providerFromInput({ ...base, issuer: "http://127.0.0.1:8080/realms/x" }, T).issuer,
    "http://127.0.0.1:8080/realms/x",
  );
  const refusals: Array<[Record<string, string>, string]> = [
    [{ id: "Entra Acme" }, "id"],
    [{ issuer: "http://idp.acme.eu" }, "issuer"],
    [{ issuer: "not a url" }, "issuer"],
    [{ issuer: "https://idp.acme.eu/?tenant=1" }, "issuer"],
    [{ client_id: "" }, "client_id"],
    [{ client_secret_env: "MY-SECRET" }, "client_secret_env"],
    [{ redirect_url: "https://dashboard.acme.eu/callback" }, "redirect_url"],
    [{ redirect_url: "http://dashboard.acme.eu/sso/callback" }, "redirect_url"],
    [{ groups_claim: "groups claim" }, "groups_claim"],
    [{ scopes: 'openid "quoted"' }, "scopes"],
  ];
  for (const [change, field] of refusals) {
    assert.throws(
      () => providerFromInput({ ...base, ...change }, T),
      (e) => e instanceof GatewayError && e.status === 400 && e.param === field,
      JSON.stringify(change),
    );
  }
});
