/**
 * Webhook signing secrets sealed at rest with `SOVRA_SECRET_KEY` (docs/costs.md "Spend alerts"):
 * made by the admin CLI or the dashboard, the store holds only the sealed form, and the gateway's
 * alerts are still signed with the secret the customer was shown (a real receiver verifies them
 * with `standardwebhooks`). A sealed secret without the key fails the delivery with the cause in
 * its log, and nothing is sent unsigned.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { chatBody } from "../helpers/api.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import { until } from "../helpers/until.ts";
import { ApiClient, startDashboardHarness } from "../dashboard/support.ts";
import { isSealed } from "../../src/util/secret_box.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32)).toBase64();

Deno.test("sealed signing secret — from the admin CLI: stored sealed, the spend alert verifies with the secret shown", async () => {
  await using receiver = startWebhookReceiver();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    credits: 1_000_000,
    env: { SOVRA_WEBHOOK_ALLOW_LOCAL: "true", SOVRA_SECRET_KEY: KEY },
  });
  await h.admin(["alerts", "set"], {
    org: h.org,
    "webhook-url": receiver.url,
    "daily-spend-above-micro-eur": "1",
  });
  const { secret } = await h.admin(["alerts", "secret"], { org: h.org });
  assert.match(String(secret), /^whsec_/);
  receiver.secret = String(secret);
  const stored = (await h.store.alerts!.getAlertSettings(h.org))!.secret!;
  assert.ok(isSealed(stored), "sealed in the store");
  assert.ok(!stored.includes(String(secret).slice(6)), "the secret is not in the store");

  const res = await h.post("/v1/chat/completions", chatBody("acme/chat", "Hello"));
  assert.equal(res.status, 200);
  await res.body?.cancel();
  await until("the alert arrived", () => receiver.received.length >= 1);
  assert.ok(receiver.received[0]!.verified, "signed with the secret shown");
});

Deno.test("sealed signing secret — from the dashboard: stored sealed, the test webhook verifies; without the key it fails, never unsigned", async () => {
  await using receiver = startWebhookReceiver();
  let sealed: string;
  {
    await using d = await startDashboardHarness({
      env: { SOVRA_WEBHOOK_ALLOW_LOCAL: "true", SOVRA_SECRET_KEY: KEY },
    });
    await d.user("owner@example.eu", d.h.org, "owner");
    const c = await ApiClient.signedIn(d.url, "owner@example.eu");
    const base = `/api/orgs/${d.h.org}/alerts`;
    assert.equal((await c.json("PATCH", base, { webhook_url: receiver.url })).status, 200);
    const made = await c.post(`${base}/secret`);
    assert.equal(made.status, 201);
    receiver.secret = made.body.secret;
    sealed = (await d.h.store.alerts!.getAlertSettings(d.h.org))!.secret!;
    assert.ok(isSealed(sealed));
    const sent = await c.post(`${base}/test`);
    assert.equal(sent.body.status, "delivered", JSON.stringify(sent.body));
    assert.ok(receiver.received.at(-1)!.verified);
  }
  // The same sealed secret on a gateway started without the key.
  await using d = await startDashboardHarness({ env: { SOVRA_WEBHOOK_ALLOW_LOCAL: "true" } });
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const base = `/api/orgs/${d.h.org}/alerts`;
  assert.equal((await c.json("PATCH", base, { webhook_url: receiver.url })).status, 200);
  const settings = (await d.h.store.alerts!.getAlertSettings(d.h.org))!;
  await d.h.store.alerts!.putAlertSettings({ ...settings, secret: sealed });
  const before = receiver.received.length;
  const failed = await c.post(`${base}/test`);
  assert.equal(failed.body.status, "failed", JSON.stringify(failed.body));
  assert.match(failed.body.attempts[0].error, /SOVRA_SECRET_KEY is not set/);
  assert.equal(receiver.received.length, before, "nothing was sent");
});
