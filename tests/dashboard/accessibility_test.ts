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
import { addProvider, bindProvider } from "../../src/dashboard/areas/sso_settings.ts";
import { inviteToOrg } from "../../src/dashboard/areas/invitations.ts";
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
  // A function, not a string: the dashboard's CSP forbids the eval a string predicate needs.
  await page.waitForFunction(() =>
    // deno-lint-ignore no-explicit-any
    [...(globalThis as any).document.querySelectorAll("[data-chart]")].every((el) =>
      el.querySelector(".uplot")
    )
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
 * Opens the page (`open`) at the desktop width, then narrows the window to the phone's, and
 * collects what is wrong: axe's serious violations at each width (at the phone's only when
 * `phoneAxe`: the frame is the same for every role), sideways scrolling at the phone's.
 */
async function audit(
  page: Page,
  label: string,
  open: () => Promise<unknown>,
  problems: string[],
  phoneAxe = true,
) {
  await page.setViewportSize(DESKTOP);
  await open();
  await settled(page);
  for (const v of await seriousViolations(page)) problems.push(`${label} @1280: ${v}`);
  await page.setViewportSize(PHONE);
  // The charts follow their panel's width (redrawn when it changes).
  await page.waitForFunction(
    () =>
      // deno-lint-ignore no-explicit-any
      [...(globalThis as any).document.querySelectorAll("[data-chart]")].every((el) =>
        el.querySelector(".uplot").offsetWidth <= el.clientWidth
      ),
    undefined,
    { timeout: 5_000 },
  ).catch(() => problems.push(`${label} @390: a chart stays wider than its panel`));
  if (phoneAxe) {
    for (const v of await seriousViolations(page)) problems.push(`${label} @390: ${v}`);
  }
  // Layout after a resize settles over frames (the charts redraw from a ResizeObserver): the
  // page must come to fit, and a page that still scrolls sideways after 5 s is a failure.
  const fits = await page.waitForFunction(
    () => {
      // deno-lint-ignore no-explicit-any
      const window = globalThis as any;
      return window.document.documentElement.scrollWidth <= window.innerWidth;
    },
    undefined,
    { timeout: 5_000 },
  ).then(() => true, () => false);
  if (!fits) {
    const scroll = await page.evaluate<number>("document.documentElement.scrollWidth");
    problems.push(`${label} @390: the page is ${scroll} px wide (scrolls sideways)`);
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

/** Users, traffic, an identity provider; returns an invitation link (the viewer's, to a second organization). */
async function seed(d: DashboardHarness): Promise<string> {
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("viewer@example.eu", d.h.org, "viewer");
  await d.user("op@example.eu", undefined, undefined, true);
  // An identity provider (never contacted here) so the sign-in and SSO pages show their forms.
  await addProvider(d.dash.deps, {
    id: "keycloak-acme",
    name: "Acme Keycloak",
    issuer: "https://id.acme.example/realms/acme",
    client_id: "sovra",
    client_secret_env: "SOVRA_TEST_SSO_SECRET",
    redirect_url: `${d.url}/sso/callback`,
  }, "test");
  await bindProvider(d.dash.deps, d.h.org, {
    provider: "keycloak-acme",
    domains: "example.eu = viewer",
    groups: "",
  }, "test");
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
  const invited = await inviteToOrg(d.dash.deps, {
    org: d.otherOrg,
    email: "viewer@example.eu",
    role: "admin",
    actor: "test",
  });
  return invited.invite_url;
}

Deno.test("dashboard accessibility — axe, 390 px, keyboard, text alternatives, live regions", async (t) => {
  await using d = await startDashboardHarness();
  const inviteLink = await seed(d);
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
      await audit(page, "forgot password", () => page.goto(`${d.url}/forgot-password`), problems);
      await audit(page, "invitation link", () => page.goto(inviteLink), problems);
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
          "alerts",
          "members",
          "routing",
          "policies",
          "sso",
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
      await audit(page, "account security", () => page.goto(`${d.url}/account`), problems);
      await audit(
        page,
        "2fa setup",
        submitted(
          page,
          `${d.url}/account`,
          () => ({}),
          'button:has-text("Set up two-factor sign-in")',
          "#totp-secret",
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
        await audit(page, `viewer ${p}`, () => page.goto(`${org}/${p}`), problems, false);
      }
      await audit(page, "viewer refused", () => page.goto(`${org}/members`), problems, false);
      await audit(page, "invitations", () => page.goto(`${d.url}/invitations`), problems);
      await page.context().close();
      assert.deepEqual(problems, []);
    });

    await t.step("operator", async () => {
      const problems: string[] = [];
      const page = await open();
      await signIn(page, d.url, "op@example.eu");
      await audit(page, "operator", () => page.goto(`${d.url}/operator`), problems);
      await audit(page, "operator sso", () => page.goto(`${d.url}/operator/sso`), problems);
      await audit(page, "operator credits", () => page.goto(`${org}/credits`), problems);
      await page.context().close();
      assert.deepEqual(problems, []);
    });

    await t.step("keyboard, text alternatives, live regions, phone menu, dry run", async () => {
      // A context with the CSP in force: the module scripts must load and run under it.
      const context = await browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
      page.on("pageerror", (e) => errors.push(String(e)));
      await signIn(page, d.url, "owner@example.eu");
      const active = () =>
        page.evaluate<string>(
          "document.activeElement?.id || document.activeElement?.textContent?.trim() || ''",
        );

      // The skip link is the first stop and moves focus to the page's content.
      await page.goto(`${org}/overview`);
      await settled(page);
      await page.keyboard.press("Tab");
      assert.equal(await active(), "Skip to content");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() =>
        // deno-lint-ignore no-explicit-any
        (globalThis as any).document.activeElement?.id === "main"
      );

      // Charts: a summary as their name, the numbers in a table.
      const chart = page.locator("[data-chart]").first();
      assert.equal(await chart.getAttribute("role"), "img");
      assert.match(
        (await chart.getAttribute("aria-label"))!,
        /^Cost per day, last 30 days: €\s[\d.]+ in all; the highest day \d{4}-\d\d-\d\d with €\s[\d.]+\.$/,
      );
      assert.equal(await page.locator(".chart-data tbody tr").count(), 30);

      // At 1280 px the request table fits its panel; at 390 px it scrolls in its own region,
      // which Tab reaches and the arrow keys scroll.
      await page.goto(`${org}/usage`);
      await settled(page);
      const region = page.locator("#requests-region");
      assert.equal(await region.getAttribute("role"), "region");
      assert.equal(await region.getAttribute("aria-label"), "Recent requests");
      assert.ok(
        await page.evaluate<boolean>(
          "(el => el.scrollWidth <= el.clientWidth)(document.getElementById('requests-region'))",
        ),
        "the request table fits at 1280 px",
      );
      await page.setViewportSize(PHONE);
      await page.reload();
      await settled(page);
      assert.ok(
        await page.evaluate<boolean>(
          "(el => el.scrollWidth > el.clientWidth)(document.getElementById('requests-region'))",
        ),
        "the request table scrolls at 390 px",
      );
      let tabs = 0;
      while ((await active()) !== "requests-region" && tabs++ < 100) {
        await page.keyboard.press("Tab");
      }
      assert.equal(await active(), "requests-region", "Tab reaches the request table");
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await page.waitForFunction(() =>
        // deno-lint-ignore no-explicit-any
        (globalThis as any).document.getElementById("requests-region").scrollLeft > 0
      );

      // The navigation folds behind its menu button on a phone.
      const menu = page.locator("button.menu-toggle");
      assert.ok(!(await page.locator('nav a:has-text("Credits")').isVisible()));
      await menu.click();
      assert.equal(await menu.getAttribute("aria-expanded"), "true");
      await page.click('nav a:has-text("Credits")');
      await page.waitForURL(/\/credits$/);
      await page.setViewportSize(DESKTOP);

      // Notices are live regions: a new key's panel is a status message.
      await submitted(
        page,
        `${org}/keys`,
        () => ({ name: "live" }),
        'button:has-text("Create key")',
        "#new-key",
      )();
      assert.equal(await page.locator("#new-key-panel").getAttribute("role"), "status");

      // The dry run's result appears below its form, in view (on a phone the form fills the
      // screen, so the result must be scrolled to), in a live region, and the address stays one
      // that reloads.
      await page.setViewportSize(PHONE);
      await page.goto(`${org}/policies`);
      await page.locator('#dry-run-form select[name="model"]').selectOption(MODEL);
      // The button at the bottom edge of the screen, as after scrolling down to it.
      await page.evaluate(
        "document.querySelector('#dry-run-form button').scrollIntoView({ block: 'end' })",
      );
      await page.click('#dry-run-form button:has-text("Check")');
      const result = page.locator("#dry-run");
      await result.waitFor();
      assert.match((await result.textContent())!, /Passes: acme\/chat would be served/);
      // It is scrolled to once htmx has settled the swap.
      const onScreen = await page.waitForFunction(
        () => {
          // deno-lint-ignore no-explicit-any
          const g = globalThis as any;
          const box = g.document.getElementById("dry-run").getBoundingClientRect();
          return box.top >= 0 && box.bottom <= g.innerHeight + 1;
        },
        undefined,
        { timeout: 5_000 },
      ).then(() => true, () => false);
      assert.ok(onScreen, "the result is on screen");
      assert.equal(
        await page.evaluate<string | null>(
          "document.getElementById('dry-run').closest('[aria-live]')?.getAttribute('aria-live') ?? null",
        ),
        "polite",
      );
      assert.equal(new URL(page.url()).pathname, `/orgs/${d.h.org}/policies`);
      const reloaded = await page.reload();
      assert.equal(reloaded?.status(), 200);
      const old = await page.goto(`${org}/policies/dry-run`);
      assert.equal(old?.status(), 200);
      assert.equal(new URL(page.url()).pathname, `/orgs/${d.h.org}/policies`);

      assert.deepEqual(errors, []);
      await context.close();
    });
  } finally {
    await browser.close();
  }
});
