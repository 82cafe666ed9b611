/**
 * `deno task screenshots`: regenerates the dashboard's screenshots (docs/screenshots/, referenced
 * from docs/dashboard.md), each page at 1280 px and at a phone's 390 px (`<page>-phone.png`).
 * Starts the gateway over the openai simulator with the shipped catalog and the dashboard on
 * a temporary KV file, fills it with a month of example traffic (past days through the
 * store's own settle, today's through the request API), then drives Debian's Chromium
 * (playwright-core) through each page.
 */
import { configFromEnv } from "../src/config.ts";
import { startGateway } from "../src/gateway.ts";
import { silentLogger } from "../src/log.ts";
import { startDashboardBeside } from "../src/dashboard/server.ts";
import { createOrganization } from "../src/accounts/orgs.ts";
import { issueApiKey } from "../src/accounts/api_keys.ts";
import { hashPassword } from "../src/dashboard/passwords.ts";
import { inviteToOrg } from "../src/dashboard/areas/invitations.ts";
import { grantCredits } from "../src/dashboard/areas/credits.ts";
import { randomId, timeOrderedId } from "../src/util/ids.ts";
import type { RequestRecord } from "../src/state/records.ts";
import type { OrgPolicy } from "../src/state/policy_store.ts";
import { startOpenAISimulator } from "./simulator/openai/mod.ts";
import { writeSimulatedCatalog } from "./simulated_catalog.ts";
import { launchChromium } from "../tests/helpers/chromium.ts";

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;
const PASSWORD = "screenshots-password-1";
const tmp = await Deno.makeTempDir({ prefix: "sovra-shots-" });
const sim = await startOpenAISimulator({ recordRequests: false });
await writeSimulatedCatalog("./catalog", `${tmp}/catalog`, { openai: sim.url });
const config = configFromEnv({
  SOVRA_PORT: "0",
  SOVRA_DASHBOARD_PORT: "0",
  SOVRA_KV: `${tmp}/sovra.kv`,
  SOVRA_CATALOG: `${tmp}/catalog`,
  SOVRA_PASSWORD_SCRYPT_LOG_N: "12",
  MISTRAL_API_KEY: "sim",
  SCALEWAY_API_KEY: "sim",
});
const gateway = await startGateway(config, { log: silentLogger });
const dashboard = startDashboardBeside(gateway, silentLogger);
const deps = dashboard.deps;
const store = gateway.deps.store;

// People, an organization, keys.
const org = await createOrganization(store, { name: "Acme Robotics GmbH", creditsMicroEur: 0n });
const access = { org, role: null, operator: true };
const operator = { user: { email: "ops@sovra.example" } };
await grantCredits(deps, access, operator, {
  amount_micro_eur: 250_000_000,
  note: "Order 2026-114",
});
async function user(email: string, role?: "owner" | "admin" | "viewer", op = false) {
  const id = randomId("usr_", 12);
  await deps.accounts.createUser({
    id,
    email,
    password_hash: await hashPassword(PASSWORD, config.passwordScryptLogN),
    operator: op,
    created: new Date().toISOString(),
    password_changed_at: null,
  });
  if (role) {
    await deps.accounts.addMembership({
      org: org.id,
      user: id,
      role,
      created: new Date().toISOString(),
    });
  }
}
await user("lena@acme.example", "owner");
await user("jonas@acme.example", "admin");
await user("finance@acme.example", "viewer");
await user("ops@sovra.example", undefined, true);
await inviteToOrg(deps, {
  email: "new.hire@acme.example",
  org: org.id,
  role: "viewer",
  actor: "lena@acme.example",
});
await deps.control.setOrgSettings(org.id, {
  low_balance_micro_eur: 20_000_000,
  rpm_ceiling: 1200,
  require_2fa: false,
  suspended_at: null,
});
const keys = [];
for (const [name, rpm] of [["production", 1000], ["staging", 120], ["batch-jobs", 600]] as const) {
  keys.push((await issueApiKey(store, { org: org.id, name, rpm })).record);
}

// A month of traffic: past days through the store's settle (the real write path).
const models = gateway.deps.catalog.current.activeModels().filter((m) =>
  m.kind === "chat" && m.routes.some((r) => r.provider === "mistral")
).slice(0, 3);
let seed = 7;
const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const now = Date.now();
for (let day = 29; day >= 1; day--) {
  const count = Math.round(15 + 25 * rand() + (day < 10 ? 20 : 0));
  for (let i = 0; i < count; i++) {
    const at = now - day * 86_400_000 + Math.floor(rand() * 3_600_000 * 8);
    const model = models[Math.floor(rand() * models.length)]!;
    const key = keys[Math.floor(rand() * keys.length)]!;
    const prompt = Math.round(200 + rand() * 3000);
    const completion = Math.round(50 + rand() * 900);
    const p = model.pricing;
    const cost = Math.round(
      (prompt * (p.prompt_micro_eur_per_million ?? 0) +
        completion * (p.completion_micro_eur_per_million ?? 0)) / 1_000_000,
    );
    const failed = rand() < 0.03;
    const record: RequestRecord = {
      id: timeOrderedId("req_", at),
      created: new Date(at).toISOString(),
      org: org.id,
      key_id: key.id,
      user: null,
      endpoint: "chat",
      requested_model: model.id,
      served_model: failed ? null : model.id,
      provider: "mistral",
      status: failed ? 502 : 200,
      latency_ms: Math.round(300 + rand() * 2000),
      prompt_tokens: failed ? null : prompt,
      completion_tokens: failed ? null : completion,
      total_tokens: failed ? null : prompt + completion,
      audio_seconds: null,
      characters: null,
      cost_micro_eur: failed ? 0 : cost,
      estimated: false,
      stream: rand() < 0.5,
      fallbacks: 0,
      cached_tokens: null,
      cache_write_tokens: null,
      cache_write_1h_tokens: null,
      cache_savings_micro_eur: 0,
    };
    await store.settle(record);
  }
}
// Today's requests through the request API.
const today = await issueApiKey(store, { org: org.id, name: "web-app", rpm: 600 });
for (let i = 0; i < 6; i++) {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${today.key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: models[i % models.length]!.id,
      messages: [{ role: "user", content: "Summarise our GDPR obligations." }],
      user: `customer-${100 + i}`,
    }),
  });
  await res.body?.cancel();
}
await gateway.deps.settler.idle();
await store.flushed();

// Policies: strict sovereignty with the guardrail flagging, and one key narrowed further.
const strict: OrgPolicy = {
  sovereignty: "strict_only",
  blocked_providers: [],
  zdr_only: false,
  allowed_models: null,
  guardrail: "flag",
  guardrail_remote: null,
};
await store.putOrgPolicy(org.id, { ...strict, guardrail: "off" }, "dashboard:lena@acme.example");
await store.putOrgPolicy(org.id, strict, "dashboard:lena@acme.example");
await store.putKeyPolicy(org.id, keys[2]!.id, { guardrail: "block", zdr_only: true }, "cli");

// The pages, at a desktop width and a phone's (`<name>-phone.png`).
await Deno.mkdir(OUT, { recursive: true });
const browser = await launchChromium();
const WIDTHS = [
  { suffix: "", viewport: { width: 1280, height: 860 }, newKey: "mobile-app" },
  { suffix: "-phone", viewport: { width: 390, height: 844 }, newKey: "ios-app" },
];
try {
  for (const { suffix, viewport, newKey } of WIDTHS) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const shot = async (name: string) => {
      await page.waitForLoadState("networkidle");
      await page.screenshot({ path: `${OUT}${name}${suffix}.png`, fullPage: false });
      console.log(`docs/screenshots/${name}${suffix}.png`);
    };
    const signIn = async (email: string) => {
      await page.goto(`${dashboard.url}/login`);
      await page.fill('input[name="email"]', email);
      await page.fill('input[name="password"]', PASSWORD);
      await page.click('button[type="submit"]');
      await page.waitForLoadState("networkidle");
    };
    await page.goto(`${dashboard.url}/login`);
    await shot("login");
    await signIn("lena@acme.example");
    await page.goto(`${dashboard.url}/orgs/${org.id}/overview`);
    await page.locator(".uplot").first().waitFor();
    await shot("overview");
    if (suffix) {
      await page.click("button.menu-toggle");
      await shot("menu");
    }
    await page.goto(`${dashboard.url}/orgs/${org.id}/keys`);
    await page.fill('input[name="name"]', newKey);
    await page.fill('input[name="rpm"]', "300");
    await page.click('button:has-text("Create key")');
    await page.locator("#new-key").waitFor();
    await shot("keys");
    await page.goto(`${dashboard.url}/orgs/${org.id}/usage?days=30&group=model`);
    await page.locator(".uplot").first().waitFor();
    await shot("usage");
    await page.evaluate("document.querySelector('#requests').closest('.panel').scrollIntoView()");
    await shot("requests");
    await page.goto(`${dashboard.url}/orgs/${org.id}/credits`);
    await shot("credits");
    await page.goto(`${dashboard.url}/orgs/${org.id}/members`);
    await shot("members");
    await page.goto(`${dashboard.url}/orgs/${org.id}/policies`);
    await page.locator('#dry-run-form select[name="model"]').selectOption(models[0]!.id);
    await page.click('#dry-run-form button:has-text("Check")');
    await page.locator("#dry-run").waitFor();
    await shot("policies");
    await page.evaluate(
      "document.querySelector('#key-policies').closest('.panel').scrollIntoView()",
    );
    await shot("policy-keys");
    await page.goto(`${dashboard.url}/orgs/${org.id}/audit`);
    await shot("audit");
    await page.goto(`${dashboard.url}/orgs/${org.id}/overview`);
    await page.click('button:has-text("Sign out")');
    await signIn("ops@sovra.example");
    await page.goto(`${dashboard.url}/operator`);
    await shot("operator");
    await context.close();
  }
} finally {
  await browser.close();
  await dashboard.close();
  await gateway.close();
  await sim.close();
  await Deno.remove(tmp, { recursive: true });
}
