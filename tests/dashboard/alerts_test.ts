/**
 * Spend alerts in the dashboard (docs/costs.md "Spend alerts"): owners set thresholds and the
 * webhook (a non-https or local URL is a 400 naming the field unless the operator allows it),
 * create the signing secret (shown once, never listed), send a test webhook that a real receiver
 * verifies, and see every delivery in the log; viewers read but cannot change; audited.
 */
import assert from "node:assert/strict";
import { ApiClient, startDashboardHarness } from "./support.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";

Deno.test("alerts page — settings, a secret shown once, a verified test webhook and the delivery log", async () => {
  await using receiver = startWebhookReceiver();
  await using d = await startDashboardHarness({ env: { SOVRA_WEBHOOK_ALLOW_LOCAL: "true" } });
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("viewer@example.eu", d.h.org, "viewer");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const base = `/api/orgs/${d.h.org}/alerts`;

  const initial = await c.get(base);
  assert.equal(initial.status, 200);
  assert.deepEqual(initial.body.settings.key_budget_percents, [80, 100]);
  assert.equal(initial.body.settings.has_secret, false);

  const bad = await c.json("PATCH", base, { key_budget_percents: [80, 150] });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.param, /^key_budget_percents/);
  const changed = await c.json("PATCH", base, {
    webhook_url: receiver.url,
    balance_below_micro_eur: 5_000_000,
    daily_spend_above_micro_eur: 20_000_000,
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal(changed.body.webhook_url, receiver.url);

  const test = await c.post(`${base}/test`);
  assert.equal(test.status, 400, "no secret yet");
  const made = await c.post(`${base}/secret`);
  assert.equal(made.status, 201);
  assert.equal(made.headers.get("cache-control"), "no-store");
  receiver.secret = made.body.secret;
  const listed = await c.get(base);
  assert.equal(listed.body.settings.has_secret, true);
  assert.ok(!JSON.stringify(listed.body).includes(made.body.secret), "never listed again");

  const sent = await c.post(`${base}/test`);
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.equal(sent.body.status, "delivered");
  assert.equal(receiver.received.length, 1);
  assert.ok(receiver.received[0]!.verified);
  assert.equal(receiver.received[0]!.id, sent.body.id);
  assert.equal(JSON.parse(receiver.received[0]!.body).type, "webhook.test");

  const page = await (await c.request("GET", `/orgs/${d.h.org}/alerts`)).text();
  assert.ok(page.includes(sent.body.id), "the delivery log lists it");
  assert.ok(!page.includes(made.body.secret));

  const viewer = await ApiClient.signedIn(d.url, "viewer@example.eu");
  assert.equal((await viewer.get(base)).status, 200);
  assert.equal((await viewer.json("PATCH", base, { email: "x@example.eu" })).status, 403);
  assert.equal((await viewer.post(`${base}/secret`)).status, 403);

  const audit = await c.get(`/api/orgs/${d.h.org}/audit`);
  const actions = audit.body.data.map((e: { action: string }) => e.action);
  assert.ok(actions.includes("alerts.changed") && actions.includes("alerts.secret_created"));
});

Deno.test("alerts page — a webhook must be https and not local unless the operator allows it", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const base = `/api/orgs/${d.h.org}/alerts`;
  for (
    const url of [
      "http://example.eu/hook",
      "https://127.0.0.1/hook",
      "https://10.1.2.3/hook",
      "https://[::1]/hook",
      "https://metadata.internal/hook",
      "https://169.254.169.254/latest",
    ]
  ) {
    const res = await c.json("PATCH", base, { webhook_url: url });
    assert.equal(res.status, 400, url);
    assert.equal(res.body.error.param, "webhook_url");
  }
  assert.equal(
    (await c.json("PATCH", base, { webhook_url: "https://example.eu/hook" })).status,
    200,
  );
});
