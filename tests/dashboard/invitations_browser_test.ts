/**
 * Invitations in a real browser (Debian's Chromium via playwright-core): an owner invites an
 * account that exists elsewhere and a new e-mail from the Members page; the existing account
 * signs in and accepts from its Invitations page; the newcomer creates its account with the
 * link. No console error (a CSP violation would be one) along the way.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { signIn } from "./browser_support.ts";
import { launchChromium, watchConsole } from "../helpers/chromium.ts";
import { PASSWORD, startDashboardHarness } from "./support.ts";

/** A page in its own browser context (its own cookies), its console errors kept in `errors`. */
async function newPage(browser: Browser, errors: string[]): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const own = watchConsole(page);
  page.on("close", () => errors.push(...own));
  return page;
}

Deno.test("browser — invite an existing account and a new e-mail; one accepts after signing in, the other creates its account", async () => {
  await using d = await startDashboardHarness();
  const browser = await launchChromium();
  try {
    await d.user("owner@acme.test", d.h.org, "owner");
    await d.user("bob@bravo.test", d.otherOrg, "owner");
    const errors: string[] = [];

    const owner = await newPage(browser, errors);
    await signIn(owner, d.url, "owner@acme.test");
    await owner.waitForURL(/\/overview$/);
    await owner.click('nav a:has-text("Members")');
    await owner.waitForURL(/\/members$/);
    const invite = async (email: string, role: string) => {
      await owner.fill('input[name="email"]', email);
      await owner.selectOption('form[action$="/members"] select[name="role"]', role);
      await owner.click('button:has-text("Invite")');
      await owner.locator(".notice", { hasText: `Invitation recorded for ${email}` }).waitFor();
      return (await owner.locator("#invite-link").textContent())!.trim();
    };
    await invite("bob@bravo.test", "admin");
    const newcomerLink = await invite("new@acme.test", "viewer");
    assert.match(newcomerLink, /\/invite\?token=/);
    const pending = await owner.locator("#invitations tbody tr").allTextContents();
    assert.equal(pending.length, 2);

    // Bob signs in to his own organization and accepts from his invitations.
    const bob = await newPage(browser, errors);
    await signIn(bob, d.url, "bob@bravo.test");
    await bob.waitForURL(new RegExp(`/orgs/${d.otherOrg}/overview$`));
    await bob.click('nav a:has-text("Invitations (1)")');
    await bob.waitForURL(/\/invitations$/);
    const row = bob.locator("#invitations tbody tr", { hasText: "Test org" });
    assert.match((await row.textContent())!, /admin/);
    await row.locator('button:has-text("Accept")').click();
    await bob.waitForURL(new RegExp(`/orgs/${d.h.org}/overview$`));
    await bob.locator('nav a:has-text("API keys")').waitFor();
    assert.equal(await bob.locator('nav a:has-text("Invitations")').count(), 0);

    // The newcomer opens the link, chooses a password, signs in.
    const newcomer = await newPage(browser, errors);
    await newcomer.goto(newcomerLink);
    await newcomer.locator("text=invites new@acme.test").waitFor();
    await newcomer.fill('input[name="password"]', PASSWORD);
    await newcomer.click('button:has-text("Create account and join")');
    await newcomer.locator("text=is a viewer of Test org").waitFor();
    await signIn(newcomer, d.url, "new@acme.test");
    await newcomer.waitForURL(new RegExp(`/orgs/${d.h.org}/overview$`));

    await owner.reload();
    const members = await owner.locator("#members tbody tr").allTextContents();
    assert.equal(members.length, 3);
    assert.ok(members.some((m) => m.includes("bob@bravo.test")));
    assert.ok(members.some((m) => m.includes("new@acme.test")));
    assert.equal(await owner.locator("#invitations").count(), 0, "nothing pending");
    for (const page of [owner, bob, newcomer]) await page.close();
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
