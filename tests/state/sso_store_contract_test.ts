/**
 * The single sign-on area (`src/state/sso_store.ts`) against both backends, one set of cases:
 * providers and the "still bound" refusal (also racing a new binding), bindings and their
 * provider index, identities unique per (issuer, subject), managed memberships forgotten with
 * their binding, flows taken exactly once under a race, and a session's identity provider.
 */
import assert from "node:assert/strict";
import { kvBackend, type Opened, pgBackend } from "./control_plane_backends.ts";
import type {
  SsoBindingRecord,
  SsoFlowRecord,
  SsoProviderRecord,
} from "../../src/state/sso_records.ts";

const T = "2026-11-21T10:00:00.000Z";
/** Ahead of now (a backend may forget what has expired). */
const LATER = new Date(Date.now() + 3_600_000).toISOString();

const provider = (id: string): SsoProviderRecord => ({
  id,
  name: `Provider ${id}`,
  issuer: `https://${id}.example.eu/realms/acme`,
  client_id: "sovra",
  client_secret_env: "SECRET_OF_" + id.toUpperCase().replace(/-/g, "_"),
  scopes: ["openid", "email"],
  redirect_url: "https://dash.example.eu/sso/callback",
  groups_claim: "groups",
  email_verified_claim: "email_verified",
  created: T,
});

const binding = (org: string, providerId: string, extra: Partial<SsoBindingRecord> = {}) => ({
  org,
  provider: providerId,
  domains: [{ match: "acme.eu", role: "viewer" as const }],
  groups: [{ match: "/acme/admins", role: "admin" as const }],
  require_sso: false,
  updated: T,
  ...extra,
});

const flow = (hash: string): SsoFlowRecord => ({
  kind: "authorize",
  hash,
  provider: "kc",
  created: T,
  expires: LATER,
  purpose: "sign_in",
  code_verifier: "verifier",
  nonce: "nonce",
  next: "/",
  user: null,
  org: null,
});

const cases: Array<[string, (o: Opened) => Promise<void>]> = [
  ["providers: create once, read, list by id", async ({ areas: { sso } }) => {
    assert.equal(await sso.createProvider(provider("kc")), true);
    assert.equal(await sso.createProvider({ ...provider("kc"), name: "again" }), false);
    assert.equal(await sso.createProvider(provider("entra")), true);
    assert.deepEqual(await sso.getProvider("kc"), provider("kc"));
    assert.equal(await sso.getProvider("nope"), undefined);
    assert.deepEqual((await sso.listProviders()).map((p) => p.id), ["entra", "kc"]);
  }],
  ["providers: a bound provider is not removed; unbound it is", async ({ areas: { sso } }) => {
    await sso.createProvider(provider("kc"));
    assert.equal(await sso.setBinding(binding("org_a", "kc")), true);
    assert.equal(await sso.removeProvider("kc"), "bound");
    assert.ok(await sso.getProvider("kc"));
    assert.equal(await sso.deleteBinding("org_a"), true);
    assert.equal(await sso.removeProvider("kc"), "removed");
    assert.equal(await sso.removeProvider("kc"), "not_found");
    assert.equal(await sso.getProvider("kc"), undefined);
  }],
  [
    "bindings: need an existing provider; replace; the provider index follows",
    async ({ areas: { sso } }) => {
      assert.equal(await sso.setBinding(binding("org_a", "ghost")), false);
      assert.equal(await sso.getBinding("org_a"), undefined);
      await sso.createProvider(provider("kc"));
      await sso.createProvider(provider("entra"));
      await sso.setBinding(binding("org_b", "kc"));
      await sso.setBinding(binding("org_a", "kc"));
      assert.deepEqual((await sso.listBindingsOfProvider("kc")).map((b) => b.org), [
        "org_a",
        "org_b",
      ]);
      const replaced = binding("org_a", "kc", { require_sso: true, groups: [] });
      await sso.setBinding(replaced);
      assert.deepEqual(await sso.getBinding("org_a"), replaced);

      await sso.markManaged({ org: "org_a", user: "usr_1", provider: "kc" });
      await sso.markManaged({ org: "org_b", user: "usr_1", provider: "kc" });
      // Same provider again: the managed memberships stay managed.
      await sso.setBinding(binding("org_a", "kc"));
      assert.ok(await sso.getManaged("org_a", "usr_1"));
      // Another provider: the index moves and the old provider's managed marks are forgotten.
      await sso.setBinding(binding("org_a", "entra"));
      assert.deepEqual((await sso.listBindingsOfProvider("kc")).map((b) => b.org), ["org_b"]);
      assert.deepEqual((await sso.listBindingsOfProvider("entra")).map((b) => b.org), ["org_a"]);
      assert.equal(await sso.getManaged("org_a", "usr_1"), undefined);
      assert.ok(await sso.getManaged("org_b", "usr_1"));
      assert.equal(await sso.removeProvider("kc"), "bound");

      assert.equal(await sso.deleteBinding("org_b"), true);
      assert.equal(await sso.deleteBinding("org_b"), false);
      assert.equal(await sso.getManaged("org_b", "usr_1"), undefined);
      assert.deepEqual(await sso.listBindingsOfProvider("kc"), []);
    },
  ],
  [
    "bindings: a removal racing new bindings never leaves one to a removed provider",
    async ({ areas: { sso } }) => {
      // The removal starts a few microtasks after the binding, so that every interleaving of
      // their reads and commits occurs across the rounds.
      const yields = async (n: number) => {
        for (let i = 0; i < n; i++) await Promise.resolve();
      };
      for (let round = 0; round < 25; round++) {
        await sso.createProvider(provider("kc"));
        const [, removal] = await Promise.all([
          sso.setBinding(binding(`org_${round}`, "kc")),
          yields(round % 5).then(() => sso.removeProvider("kc")),
        ]);
        const bound = await sso.listBindingsOfProvider("kc");
        if (removal === "removed") {
          assert.deepEqual(bound, [], "removed while bound");
          assert.equal(await sso.getProvider("kc"), undefined);
        } else {
          assert.equal(removal, "bound");
          for (const b of bound) await sso.deleteBinding(b.org);
          assert.equal(await sso.removeProvider("kc"), "removed");
        }
      }
    },
  ],
  [
    "identities: one user per (issuer, subject); touch, list, delete",
    async ({ areas: { sso } }) => {
      const identity = {
        issuer: "https://kc.example.eu/realms/acme",
        subject: "f:1",
        provider: "kc",
        user: "usr_1",
        created: T,
        last_sign_in: T,
      };
      assert.equal(await sso.createIdentity(identity), true);
      assert.equal(await sso.createIdentity({ ...identity, user: "usr_2" }), false);
      // The same subject at another issuer is another person.
      const other = { ...identity, issuer: "https://login.microsoftonline.com/t/v2.0" };
      assert.equal(await sso.createIdentity(other), true);
      await sso.touchIdentity(identity.issuer, identity.subject, "2026-11-22T00:00:00.000Z");
      await sso.touchIdentity("https://nowhere", "x", T);
      assert.equal(
        (await sso.getIdentity(identity.issuer, identity.subject))?.last_sign_in,
        "2026-11-22T00:00:00.000Z",
      );
      assert.deepEqual((await sso.listIdentitiesOfUser("usr_1")).map((i) => i.issuer), [
        identity.issuer,
        other.issuer,
      ]);
      await sso.deleteIdentity(identity.issuer, identity.subject);
      assert.equal(await sso.getIdentity(identity.issuer, identity.subject), undefined);
      assert.deepEqual((await sso.listIdentitiesOfUser("usr_1")).map((i) => i.issuer), [
        other.issuer,
      ]);
      assert.deepEqual(await sso.listIdentitiesOfUser("usr_2"), []);
    },
  ],
  ["managed memberships: mark, read, unmark", async ({ areas: { sso } }) => {
    await sso.markManaged({ org: "org_a", user: "usr_1", provider: "kc" });
    assert.deepEqual(await sso.getManaged("org_a", "usr_1"), {
      org: "org_a",
      user: "usr_1",
      provider: "kc",
    });
    assert.equal(await sso.getManaged("org_a", "usr_2"), undefined);
    await sso.unmarkManaged("org_a", "usr_1");
    assert.equal(await sso.getManaged("org_a", "usr_1"), undefined);
  }],
  ["flows: read without using; taken exactly once under a race", async ({ areas: { sso } }) => {
    await sso.createFlow(flow("h1"));
    assert.deepEqual(await sso.getFlow("h1"), flow("h1"));
    assert.deepEqual(await sso.getFlow("h1"), flow("h1"));
    const takes = await Promise.all(Array.from({ length: 8 }, () => sso.takeFlow("h1")));
    assert.equal(takes.filter((t) => t !== undefined).length, 1);
    assert.equal(await sso.getFlow("h1"), undefined);
    const link: SsoFlowRecord = {
      kind: "link",
      hash: "h2",
      provider: "kc",
      created: T,
      expires: LATER,
      issuer: "https://kc",
      subject: "s",
      user: "usr_1",
      claims: { email: "a@acme.eu", email_verified: true, groups: ["g"] },
      next: "/",
    };
    await sso.createFlow(link);
    assert.deepEqual(await sso.takeFlow("h2"), link);
    assert.equal(await sso.takeFlow("h2"), undefined);
  }],
  ["sessions keep the identity provider they were signed in through", async ({ areas }) => {
    const base = { user: "usr_1", created: T, last_seen: T, expires: LATER };
    await areas.accounts.createSession({ ...base, hash: "s1", sso_provider: "kc" });
    await areas.accounts.createSession({ ...base, hash: "s2" });
    assert.equal((await areas.accounts.getSession("s1"))?.sso_provider, "kc");
    assert.equal((await areas.accounts.getSession("s2"))?.sso_provider, undefined);
    assert.ok(!("sso_provider" in (await areas.accounts.getSession("s2"))!));
  }],
];

for (const make of [kvBackend, pgBackend]) {
  const name = make === kvBackend ? "kv" : "postgres";
  Deno.test(`sso store contract (${name})`, async (t) => {
    await using backend = await make();
    for (const [title, run] of cases) {
      await t.step(title, async () => {
        const opened = await backend.open();
        try {
          await run(opened);
        } finally {
          await opened.store.close();
        }
      });
    }
  });
}
