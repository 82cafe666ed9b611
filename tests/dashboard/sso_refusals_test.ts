/**
 * What single sign-on refuses, against the real provider: ID tokens that are forged (another
 * key, `alg: none`), expired, for another audience or issuer, without or with the wrong nonce,
 * signed by a key the provider withdrew; a replayed or foreign `state`; an unverified e-mail; a
 * domain no organization maps. Each ends on a page saying why, and creates nothing (users,
 * memberships, identities, sessions: the store is compared before and after). Key rotation at
 * the provider is followed without a restart.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { FlowClient, refusalText, startSsoHarness } from "./sso_support.ts";
import type { Tamper } from "../helpers/oidc_provider.ts";

const now = () => Math.floor(Date.now() / 1000);

async function attackerKey() {
  const { privateKey } = await jose.generateKeyPair("RS256");
  return privateKey as CryptoKey;
}

interface Case {
  name: string;
  tamper: (idp: Awaited<ReturnType<typeof startSsoHarness>>["idp"]) => Tamper;
  message: RegExp;
}

const CASES: Case[] = [
  {
    name: "a token signed by another key under the provider's key id (forged)",
    tamper: () => async (claims, header) =>
      await new jose.SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: header.kid! })
        .sign(await attackerKey()),
    message: /JWT signature verification failed/,
  },
  {
    name: "an unsigned token (alg none)",
    tamper: () => (claims) => Promise.resolve(new jose.UnsecuredJWT(claims).encode()),
    message: /unexpected JWT "alg" header/,
  },
  {
    name: "an expired token",
    tamper: (idp) => (claims) => idp.sign({ ...claims, iat: now() - 7200, exp: now() - 3600 }),
    message: /"exp" \(expiration time\) claim value, expiration is past/,
  },
  {
    name: "a token for another client (wrong aud)",
    tamper: (idp) => (claims) => idp.sign({ ...claims, aud: "some-other-client" }),
    message: /unexpected JWT "aud" \(audience\) claim value/,
  },
  {
    name: "a token from another issuer",
    tamper: (idp) => (claims) => idp.sign({ ...claims, iss: "https://idp.attacker.example" }),
    message: /unexpected JWT "iss" \(issuer\) claim value/,
  },
  {
    name: "a token without its nonce",
    tamper: (idp) => (claims) => {
      const { nonce: _, ...rest } = claims;
      return idp.sign(rest);
    },
    message: /"nonce" \(nonce\) claim missing/,
  },
  {
    name: "a token with another nonce (replayed from another sign-in)",
    tamper: (idp) => (claims) => idp.sign({ ...claims, nonce: "nonce-of-another-sign-in" }),
    message: /unexpected ID Token "nonce" claim value/,
  },
];

for (const c of CASES) {
  Deno.test(`sso refuses ${c.name}; nothing is created`, async () => {
    await using s = await startSsoHarness();
    await s.bind({ domains: ["acme.eu = admin"] });
    s.idp.accounts.set("mallory", { email: "mallory@acme.eu", email_verified: true });
    s.idp.tamper = c.tamper(s.idp);
    const before = await s.snapshot();
    const browser = new FlowClient();
    const page = await browser.signIn(s.url, "mallory");
    assert.equal(page.status, 401, page.html);
    assert.match(refusalText(page), /did not pass verification/);
    assert.match(refusalText(page), c.message);
    assert.equal(await s.snapshot(), before);
    assert.equal((await browser.api(s.url, "/api/session")).status, 401);

    // The same sign-in untampered goes through: the refusal came from the token alone.
    s.idp.tamper = undefined;
    assert.equal((await new FlowClient().signIn(s.url, "mallory")).status, 200);
  });
}

Deno.test("sso refuses a replayed callback (state used once) and a callback from another browser", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"] });
  s.idp.accounts.set("rita", { email: "rita@acme.eu", email_verified: true });
  const browser = new FlowClient();
  const callback = await browser.callbackUrl(s.url, "rita");
  const stateCookie = [...browser.jar].find(([name]) => name.endsWith("sovra_sso"))!;

  // Another browser holding the URL (login CSRF, a leaked link): refused, the flow stays usable.
  const other = new FlowClient();
  const foreign = await other.follow(callback);
  assert.equal(foreign.status, 401);
  assert.match(refusalText(foreign), /not started in this browser/);

  const first = await browser.follow(callback);
  assert.equal(first.status, 200, first.html);
  const after = await s.snapshot();

  // The same answer again, cookie and all: the state was used up.
  browser.jar.set(stateCookie[0], stateCookie[1]);
  const replay = await browser.follow(callback);
  assert.equal(replay.status, 401);
  assert.match(refusalText(replay), /already used/);
  assert.equal(await s.snapshot(), after, "no second session");
});

Deno.test("sso refuses an unverified e-mail and a domain no organization maps; nothing is created", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"], groups: ["staff = viewer"] });
  const before = await s.snapshot();

  s.idp.accounts.set("ursula", { email: "ursula@acme.eu", email_verified: false });
  const unverified = await new FlowClient().signIn(s.url, "ursula");
  assert.equal(unverified.status, 403);
  assert.match(
    refusalText(unverified),
    /did not mark your e-mail address ursula@acme.eu as verified/,
  );

  // A group rule would match, but an account is only ever made for a verified e-mail.
  s.idp.accounts.set("ulf", { email: "ulf@acme.eu", email_verified: "no", groups: ["staff"] });
  assert.equal((await new FlowClient().signIn(s.url, "ulf")).status, 403);

  s.idp.accounts.set("nina", { email: "nina@nowhere.example", email_verified: true });
  const nowhere = await new FlowClient().signIn(s.url, "nina");
  assert.equal(nowhere.status, 403);
  assert.match(refusalText(nowhere), /No organization in Sovra admits nina@nowhere.example/);
  assert.match(refusalText(nowhere), /Nothing was created/);

  assert.equal(await s.snapshot(), before);
  const refusals = (await s.d.dash.deps.control.listAudit(null, 10))
    .filter((e) => e.action === "sso.refused").map((e) => [e.actor, e.detail.reason]);
  assert.deepEqual(refusals, [
    ["nina@nowhere.example", "no_matching_rule"],
    ["ulf@acme.eu", "email_unverified"],
    ["ursula@acme.eu", "email_unverified"],
  ]);
});

Deno.test("sso follows the provider's key rotation without a restart; the withdrawn key is refused", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"] });
  s.idp.accounts.set("kim", { email: "kim@acme.eu", email_verified: true });
  assert.equal((await new FlowClient().signIn(s.url, "kim")).status, 200);

  const old = await s.idp.rotateKeys();
  assert.notEqual(s.idp.key.kid, old.kid);
  const rotated = await new FlowClient().signIn(s.url, "kim");
  assert.equal(rotated.status, 200, rotated.html);

  // A token signed with the key the provider no longer publishes.
  s.idp.tamper = (claims) => s.idp.sign(claims, old);
  const before = await s.snapshot();
  const stale = await new FlowClient().signIn(s.url, "kim");
  assert.equal(stale.status, 401);
  assert.match(refusalText(stale), /did not pass verification/);
  assert.equal(await s.snapshot(), before);
});
