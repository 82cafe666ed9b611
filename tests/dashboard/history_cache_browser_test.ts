/**
 * Secrets shown once stay shown once (real Chromium): after creating a key and an invitation,
 * signing out and pressing Back, neither the page nor the tab's sessionStorage (where htmx keeps
 * its history snapshots) holds the key, its snippets or the invitation link.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { signIn } from "./browser_support.ts";
import { launchChromium, watchConsole } from "../helpers/chromium.ts";
import { startDashboardHarness } from "./support.ts";

/** The page as it is now and everything in sessionStorage, as one string. */
async function everything(page: Page): Promise<string> {
  const storage = await page.evaluate(() =>
    JSON.stringify(Object.entries(sessionStorage).concat(Object.entries(localStorage)))
  );
  return (await page.content()) + storage;
}

/** Waits for the page Back led to to be there (a sign-in form, or a dashboard page). */
async function settled(page: Page) {
  await page.waitForLoadState();
  await page.locator('input[name="password"], #keys, #members, #balance').first().waitFor();
}

Deno.test("browser — after sign-out, Back shows no key, snippet or invitation link, and sessionStorage holds none", async () => {
  await using d = await startDashboardHarness();
  const browser = await launchChromium();
  try {
    await d.user("owner@example.eu", d.h.org, "owner");
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await signIn(page, d.url, "owner@example.eu");
    await page.waitForURL(/\/overview$/);

    await page.click('nav a:has-text("Members")');
    await page.waitForURL(/\/members$/);
    await page.fill('input[name="email"]', "new@example.eu");
    await page.click('button:has-text("Invite")');
    const link = (await page.locator("#invite-link").textContent())!.trim();
    const linkToken = new URL(link).searchParams.get("token")!;

    await page.click('nav a:has-text("API keys")');
    await page.waitForURL(/\/keys$/);
    await page.fill('input[name="name"]', "secret-key");
    await page.click('button:has-text("Create key")');
    const key = (await page.locator("#new-key").textContent())!.trim();
    assert.match(key, /^sk-ex-/);
    const secret = key.slice(10);
    assert.ok((await everything(page)).includes(secret), "shown once, right after creation");
    await page.click('nav a:has-text("Overview")');
    await page.waitForURL(/\/overview$/);

    await page.click('button:has-text("Sign out")');
    await page.waitForURL(/\/login/);
    for (let back = 1; back <= 3; back++) {
      await page.goBack();
      await settled(page);
      const seen = await everything(page);
      assert.ok(!seen.includes(secret), `Back ×${back} (${page.url()}): the key is gone`);
      assert.ok(!seen.includes(linkToken), `Back ×${back}: the invitation link is gone`);
      assert.ok(!seen.includes("Authorization: Bearer sk-"), `Back ×${back}: no snippet`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
