/** What the dashboard's Chromium tests share: signing in with a password. */
import type { Page } from "playwright-core";
import { PASSWORD } from "./support.ts";

/** Signs in through the sign-in page (from `/`, which redirects there). */
export async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/`);
  await page.waitForURL(/\/login/);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', PASSWORD);
  await page.click('form[action="/login"] button[type="submit"]');
}
