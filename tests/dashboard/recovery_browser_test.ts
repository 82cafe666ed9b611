/**
 * Getting back in, as a person does it in real Chromium: "Forgot your password?" with the link
 * read from the mail a real SMTP server on 127.0.0.1 captured, and two-factor sign-in — enrol on
 * Account security (the secret from the page, the code made by the test with `otpauth`), sign
 * out, sign in with a code, then with a recovery code; a wrong code is refused. No console error
 * (a CSP violation would be one) along the way.
 */
import assert from "node:assert/strict";
import * as OTPAuth from "otpauth";
import type { Page } from "playwright-core";
import { signIn } from "./browser_support.ts";
import { launchChromium, watchConsole } from "../helpers/chromium.ts";
import { linkIn, startSmtpCapture } from "../helpers/smtp_server.ts";
import { PASSWORD, startDashboardHarness } from "./support.ts";

const NEW_PASSWORD = "the new password of bob";

/** Console errors besides the browser's note on the refusals this journey makes on purpose. */
const unexpected = (errors: string[]) =>
  errors.filter((e) => !/^Failed to load resource: .* status of 40[01]\b/.test(e));

async function signOut(page: Page) {
  await page.click('button:has-text("Sign out")');
  await page.waitForURL(/\/login/);
}

async function passwordStep(page: Page, base: string, email: string) {
  await signIn(page, base, email);
  await page.locator('input[name="code"]').waitFor();
}

Deno.test("browser — forgot password: the mailed link sets a new password, then the account signs in with it", async () => {
  await using smtp = await startSmtpCapture();
  await using d = await startDashboardHarness({
    env: { SOVRA_SMTP_URL: smtp.url, SOVRA_SMTP_FROM: "Sovra <noreply@sovra.test>" },
  });
  const browser = await launchChromium();
  try {
    await d.user("bob@example.eu", d.h.org, "admin");
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await page.goto(`${d.url}/login`);
    await page.click('a:has-text("Forgot your password?")');
    await page.waitForURL(/\/forgot-password$/);
    await page.fill('input[name="email"]', "bob@example.eu");
    await page.click('button:has-text("Send the link")');
    await page.locator("#reset-sent").waitFor();

    const mail = await smtp.waitForMail((m) => m.to.includes("bob@example.eu"));
    assert.equal(mail.subject, "Reset your Sovra password");
    const link = linkIn(mail);
    await page.goto(link.href);
    await page.fill('input[name="password"]', NEW_PASSWORD);
    await page.click('button:has-text("Set password")');
    await page.locator('text="Password set"').first().waitFor();

    await page.goto(`${d.url}/login`);
    await page.fill('input[name="email"]', "bob@example.eu");
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    await page.locator(".error").waitFor();
    assert.match(await page.locator(".error").textContent() ?? "", /wrong/, "the old one is gone");
    await page.fill('input[name="password"]', NEW_PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/overview$/);
    // The link worked once.
    await page.goto(link.href);
    await page.fill('input[name="password"]', "one more new password");
    await page.click('button:has-text("Set password")');
    assert.match(await page.locator(".error").textContent() ?? "", /invalid, used or expired/);
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await browser.close();
  }
});

Deno.test("browser — 2FA: enrol, sign out, sign in with a code and with a recovery code; a wrong code is refused", async () => {
  await using d = await startDashboardHarness();
  const browser = await launchChromium();
  try {
    await d.user("ann@example.eu", d.h.org, "owner");
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await signIn(page, d.url, "ann@example.eu");
    await page.waitForURL(/\/overview$/);
    await page.click('nav a:has-text("Account security")');
    await page.waitForURL(/\/account$/);
    await page.click('button:has-text("Set up two-factor sign-in")');
    const secret = (await page.locator("#totp-secret").textContent())!.trim();
    type Img = { complete: boolean; naturalWidth: number; src: string };
    const qr = await page.locator("#totp-qr").evaluate((el) => {
      const img = el as unknown as Img;
      return { loaded: img.complete && img.naturalWidth > 0, src: img.src };
    });
    assert.ok(qr.loaded, "the QR code renders (img-src data: under the CSP)");
    assert.match(qr.src, /^data:image\/svg\+xml/);
    const uri = new URL((await page.locator("#totp-uri").getAttribute("href"))!);
    assert.equal(uri.protocol, "otpauth:");
    assert.equal(uri.searchParams.get("secret"), secret);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const code = (steps: number) =>
      totp.generate({ timestamp: Date.now() + d.clock.offset + steps * 30_000 });

    await page.fill('#enrolment input[name="code"]', "000000");
    await page.click('button:has-text("Turn on")');
    await page.locator(".error").waitFor();
    await page.fill('#enrolment input[name="code"]', code(0));
    await page.click('button:has-text("Turn on")');
    const recovery = (await page.locator("#recovery-codes").textContent())!.trim().split("\n");
    assert.equal(recovery.length, 10);
    assert.match(await page.locator("#two-factor-state").textContent() ?? "", /on since/);

    await signOut(page);
    await passwordStep(page, d.url, "ann@example.eu");
    await page.fill('input[name="code"]', "123456");
    await page.click('button:has-text("Verify")');
    await page.locator(".error").waitFor();
    assert.match(await page.locator(".error").textContent() ?? "", /wrong or was used/);
    d.clock.offset += 30_000; // the enrolment spent this period's code
    await page.fill('input[name="code"]', code(0));
    await page.click('button:has-text("Verify")');
    await page.waitForURL(/\/overview$/);

    await signOut(page);
    await passwordStep(page, d.url, "ann@example.eu");
    await page.fill('input[name="code"]', recovery[0]!);
    await page.click('button:has-text("Verify")');
    await page.waitForURL(/\/overview$/);
    await page.click('nav a:has-text("Account security")');
    assert.match(await page.locator("#two-factor-state").textContent() ?? "", /9 recovery codes/);

    await signOut(page);
    await passwordStep(page, d.url, "ann@example.eu");
    await page.fill('input[name="code"]', recovery[0]!);
    await page.click('button:has-text("Verify")');
    await page.locator(".error").waitFor();
    assert.match(page.url(), /\/login\/2fa$/, "a used recovery code does not sign in");
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await browser.close();
  }
});
