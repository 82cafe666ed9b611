/**
 * Single sign-on in a real browser (Debian's Chromium) against the real local OpenID
 * provider: the operator adds the provider on its page, an owner binds it with rules and runs
 * a test sign-in that shows the claims; a member signs in with the "Sign in with …" button,
 * lands in the mapped organization with the mapped role, signs out of Sovra and then of the
 * provider. No console error (a CSP violation would be one) along the way.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchChromium, watchConsole } from "../helpers/chromium.ts";
import { PASSWORD } from "./support.ts";
import { PROVIDER, SECRET_ENV, startSsoHarness } from "./sso_support.ts";

async function passwordSignIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', PASSWORD);
  await page.click('form[action="/login"] button[type="submit"]');
}

/** At the provider's own sign-in page: type the account and submit. */
async function idpLogin(page: Page, issuer: string, login: string) {
  await page.waitForURL((url) => url.href.startsWith(`${issuer}/interaction/`));
  await page.fill('input[name="login"]', login);
  await page.click('button:has-text("Sign in at the IdP")');
}

Deno.test("sso browser — the operator adds the provider, an owner binds it and tests a sign-in", async () => {
  await using s = await startSsoHarness({ addProvider: false });
  await s.d.user("op@example.eu", undefined, undefined, true);
  await s.d.user("owner@acme.eu", s.org, "owner");
  s.idp.accounts.set("tess", {
    email: "tess@acme.eu",
    email_verified: true,
    groups: ["sovra-admins"],
  });
  const browser = await launchChromium();
  try {
    const operator = await browser.newPage();
    const errors = watchConsole(operator);
    await passwordSignIn(operator, s.url, "op@example.eu");
    await operator.waitForURL(/\/operator$/);
    await operator.click('nav a:has-text("Identity providers")');
    await operator.waitForURL(/\/operator\/sso$/);
    assert.equal(
      await operator.inputValue('input[name="redirect_url"]'),
      `${s.url}/sso/callback`,
      "the redirect URL to register is shown, filled in",
    );
    await operator.fill('input[name="id"]', PROVIDER);
    await operator.fill('input[name="name"]', "Acme IdP");
    await operator.fill('input[name="issuer"]', s.idp.issuer);
    await operator.fill('input[name="client_id"]', s.idp.clientId);
    await operator.fill('input[name="client_secret_env"]', SECRET_ENV);
    await operator.fill('input[name="scopes"]', "openid email profile groups");
    await operator.click('button:has-text("Add provider")');
    const row = operator.locator("#sso-providers tbody tr", { hasText: PROVIDER });
    await row.waitFor();
    assert.match((await row.textContent())!, new RegExp(SECRET_ENV));
    assert.equal(await row.locator(".pill.error").count(), 0, "the secret variable is set");

    const owner = await (await browser.newContext()).newPage();
    errors.push(...watchConsole(owner));
    await passwordSignIn(owner, s.url, "owner@acme.eu");
    await owner.waitForURL(/\/overview$/);
    await owner.click('nav a:has-text("Single sign-on")');
    await owner.waitForURL(/\/sso$/);
    await owner.selectOption('#sso-binding select[name="provider"]', PROVIDER);
    await owner.fill('textarea[name="domains"]', "acme.eu = viewer");
    await owner.fill('textarea[name="groups"]', "sovra-admins = admin");
    await owner.click('#sso-binding button:has-text("Save")');
    await owner.locator(".notice", { hasText: "Saved." }).waitFor();
    const binding = await s.d.dash.deps.sso.getBinding(s.org);
    assert.deepEqual(binding?.groups, [{ match: "sovra-admins", role: "admin" }]);

    await owner.click('a:has-text("Test sign-in with Acme IdP")');
    await idpLogin(owner, s.idp.issuer, "tess");
    await owner.locator("#sso-test-role").waitFor();
    assert.match((await owner.locator("#sso-test-role").textContent())!, /^admin \(/);
    assert.match((await owner.locator("#sso-claims").textContent())!, /"email": "tess@acme.eu"/);
    assert.equal(await s.d.dash.deps.accounts.findUserByEmail("tess@acme.eu"), undefined);
    await owner.click('a:has-text("Back")');
    await owner.waitForURL(/\/sso$/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

Deno.test("sso browser — sign in with the provider, land in the mapped organization with the mapped role, sign out", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"], groups: ["sovra-admins = admin"] });
  s.idp.accounts.set("mia", {
    email: "mia@acme.eu",
    email_verified: true,
    groups: ["sovra-admins"],
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await page.goto(`${s.url}/`);
    await page.waitForURL(/\/login/);
    await page.click('a:has-text("Sign in with Test IdP")');
    await idpLogin(page, s.idp.issuer, "mia");
    await page.waitForURL(new RegExp(`${s.url}/orgs/${s.org}/overview$`));
    assert.equal((await page.locator(".who .pill").textContent())?.trim(), "admin");
    assert.match((await page.locator(".who").textContent())!, /mia@acme\.eu/);
    // The mapped role is what the server grants, not only what the page says.
    assert.equal(await page.locator('nav a:has-text("Members")').count(), 0, "not an owner");
    assert.equal(await page.locator('nav a:has-text("API keys")').count(), 1);

    await page.click('button:has-text("Sign out")');
    await page.locator("#sso-end-session").waitFor();
    assert.equal(JSON.parse(await s.snapshot()).sessions, 0, "the Sovra session is gone");
    await page.click("#sso-end-session");
    await page.click('button:has-text("Yes, sign me out")');
    await page.waitForURL(`${s.url}/login`);

    // Signed out at the provider too: the button leads to its sign-in form again.
    await page.click('a:has-text("Sign in with Test IdP")');
    await page.locator('input[name="login"]').waitFor();
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
