/** What the dashboard's Chromium tests share: console-error watching and signing in. */
import type { Page } from "playwright-core";
import { PASSWORD } from "./support.ts";

/** Console errors and page errors of `page` (a CSP violation is one), collected as they come. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

/** Signs in through the sign-in page (from `/`, which redirects there). */
export async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/`);
  await page.waitForURL(/\/login/);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', PASSWORD);
  await page.click('button[type="submit"]');
}
