/**
 * The dashboard in a real browser (Debian's Chromium via playwright-core): the customer's
 * journey — sign in, create a key, copy it, call the request API with it, see the request in
 * Usage and the balance drop, revoke it, sign out — and the operator granting credits. No
 * console error (a CSP violation would be one) is allowed along the way.
 */
import assert from "node:assert/strict";
import { launchChromium, watchConsole } from "../helpers/chromium.ts";
import { signIn } from "./browser_support.ts";
import { MODEL, startDashboardHarness } from "./support.ts";

function euros(text: string | null): number {
  return Number((text ?? "").replace(/[^0-9.]/g, ""));
}

async function chat(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Bonjour" }] }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("browser — sign in, create and copy a key, use it, see usage and balance, revoke, sign out", async () => {
  const d = await startDashboardHarness({ keyCacheSeconds: 1 });
  const browser = await launchChromium();
  try {
    await d.user("owner@example.eu", d.h.org, "owner");
    const context = await browser.newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: d.url });
    const page = await context.newPage();
    const errors = watchConsole(page);

    await signIn(page, d.url, "owner@example.eu");
    await page.waitForURL(new RegExp(`/orgs/${d.h.org}/overview$`));
    await page.locator(".uplot").first().waitFor();
    const balanceBefore = euros(await page.locator("#balance").textContent());
    assert.ok(balanceBefore > 0);

    await page.click('nav a:has-text("API keys")');
    await page.waitForURL(/\/keys$/);
    await page.fill('input[name="name"]', "browser-key");
    await page.click('button:has-text("Create key")');
    const shown = (await page.locator("#new-key").textContent())!.trim();
    assert.match(shown, /^sk-ex-[0-9A-Za-z]{43}$/);
    assert.ok((await page.locator("#snippet-curl").textContent())!.includes(shown));
    await page.click('button[data-copy="#new-key"]');
    await page.locator('button[data-copied="true"]').waitFor();
    const copied = await page.evaluate<string>("navigator.clipboard.readText()");
    assert.equal(copied, shown);

    assert.equal(await chat(d.h.url, copied), 200);
    await d.h.flushed();

    await page.click('nav a:has-text("Usage")');
    await page.waitForURL(/\/usage/);
    const row = page.locator("#requests tbody tr", { hasText: "browser-key" });
    await row.first().waitFor();
    assert.match((await row.first().textContent())!, new RegExp(MODEL));
    await page.click('nav a:has-text("Overview")');
    await page.waitForURL(/\/overview$/);
    const balanceAfter = euros(await page.locator("#balance").textContent());
    assert.ok(balanceAfter < balanceBefore, `${balanceAfter} < ${balanceBefore}`);

    await page.click('nav a:has-text("API keys")');
    await page.waitForURL(/\/keys$/);
    assert.ok(!(await page.content()).includes(shown.slice(10)), "shown once only");
    page.once("dialog", (dialog) => void dialog.accept());
    const keyRow = page.locator("#keys tbody tr", { hasText: "browser-key" });
    await keyRow.locator('button:has-text("Revoke")').click();
    await page.locator("#keys tbody tr", { hasText: "browser-key" }).locator(".pill.revoked")
      .waitFor();
    let status = 0;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && status !== 401) {
      status = await chat(d.h.url, copied);
      if (status !== 401) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status, 401, "the revoked key is refused");

    await page.click('button:has-text("Sign out")');
    await page.waitForURL(/\/login/);
    await page.goto(`${d.url}/orgs/${d.h.org}/overview`);
    await page.waitForURL(/\/login/);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await browser.close();
    await d.close();
  }
});

Deno.test("browser — the operator grants credits from the dashboard", async () => {
  const d = await startDashboardHarness();
  const browser = await launchChromium();
  try {
    await d.user("op@example.eu", undefined, undefined, true);
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await signIn(page, d.url, "op@example.eu");
    await page.waitForURL(/\/operator$/);
    await page.click(`#orgs a[href="/orgs/${d.h.org}/credits"]`);
    await page.waitForURL(/\/credits$/);
    const before = euros(await page.locator("#balance").textContent());
    await page.fill('input[name="amount_eur"]', "12.50");
    await page.fill('input[name="note"]', "welcome credit");
    await page.click('button:has-text("Grant")');
    await page.locator(".notice", { hasText: /Granted €\s12\.50/ }).waitFor();
    const after = euros(await page.locator("#balance").textContent());
    assert.equal(Math.round((after - before) * 100), 1250);
    assert.match((await page.locator("#ledger").textContent())!, /welcome credit/);
    const org = await d.h.store.getOrg(d.h.org);
    assert.equal(org!.granted_micro_eur, 1_000_000_000 + 12_500_000);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await d.close();
  }
});
