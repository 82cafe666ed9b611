/**
 * Spend alerts through the gateway (`src/alerts/spend_alerts.ts`): thresholds set with the
 * admin CLI, evaluated as requests settle, each crossing sent once as a Standard Webhooks
 * delivery to a real receiver on 127.0.0.1 that verifies the signature with its own HMAC; the
 * body carries amounts and ids, never the prompt; a top-up re-arms the balance alert; where SMTP is
 * configured the alert is mailed too (to a real SMTP server on 127.0.0.1).
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { chatBody, ManualClock, requestRows } from "../helpers/api.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook_receiver.ts";
import { until } from "../helpers/until.ts";
import { startSmtpCapture } from "../helpers/smtp_server.ts";

const CREDITS = 1_000_000;
const MARKER = "the-secret-ingredient-is-cardamom";

async function chat(h: Harness): Promise<void> {
  const res = await h.post("/v1/chat/completions", chatBody("acme/chat", `Recipe: ${MARKER}`));
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function settled(h: Harness): Promise<void> {
  await h.flushed();
  await h.gateway.deps.alerts!.spend.idle();
  await h.gateway.deps.alerts!.sender.idle();
}

function events(receiver: WebhookReceiver) {
  return receiver.received.map((r) => ({ ...r, event: JSON.parse(r.body) }));
}

Deno.test("spend alerts — balance below and daily spend above: one signed webhook per crossing; a top-up re-arms the balance", async () => {
  await using receiver = startWebhookReceiver();
  const clock = new ManualClock(Date.now());
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    credits: CREDITS,
    env: { SOVRA_WEBHOOK_ALLOW_LOCAL: "true" },
    now: clock.now,
  });
  await h.admin(["alerts", "set"], {
    org: h.org,
    "webhook-url": receiver.url,
    "balance-below-micro-eur": String(CREDITS - 1),
    "daily-spend-above-micro-eur": "1",
  });
  const { secret } = await h.admin(["alerts", "secret"], { org: h.org });
  assert.match(String(secret), /^whsec_[A-Za-z0-9+/]{43}=$/);
  receiver.secret = String(secret);
  assert.equal((await h.admin(["alerts", "show"], { org: h.org })).secret, undefined);

  for (let i = 0; i < 3; i++) await chat(h);
  await settled(h);
  await until("two alerts", () => receiver.received.length >= 2);
  // Later settles (with the store's figures read again) cross nothing new.
  clock.advance(6_000);
  await chat(h);
  await settled(h);

  const first = events(receiver);
  assert.equal(first.length, 2, JSON.stringify(first.map((e) => e.event)));
  assert.deepEqual(first.map((e) => e.event.type).sort(), [
    "balance.below_threshold",
    "spend.daily_above_threshold",
  ]);
  const costs = (await requestRows(h, 4)).reverse().map((r) => r.cost_micro_eur);
  const balances = costs.map((_, i) => CREDITS - costs.slice(0, i + 1).reduce((a, b) => a + b));
  for (const e of first) {
    assert.ok(e.verified, `signature of ${e.id} verifies`);
    assert.match(e.id, /^msg_/);
    assert.ok(!e.body.includes(MARKER) && !e.body.includes("Recipe"), "no prompt in the body");
    assert.equal(e.event.data.organization, h.org);
    if (e.event.type === "balance.below_threshold") {
      assert.equal(e.event.data.threshold_micro_eur, CREDITS - 1);
      assert.ok(balances.includes(e.event.data.balance_micro_eur), JSON.stringify(e.event));
    } else {
      assert.equal(e.event.data.threshold_micro_eur, 1);
      assert.equal(e.event.data.day, new Date(clock.now()).toISOString().slice(0, 10));
      assert.ok(
        balances.map((b) => CREDITS - b).includes(e.event.data.spent_micro_eur),
        JSON.stringify(e.event),
      );
    }
  }
  const log = await h.store.alerts!.listDeliveries(h.org, 10);
  assert.deepEqual(log.map((d) => d.status), ["delivered", "delivered"]);

  // A top-up (still below the threshold) is a new crossing: alerted once more.
  await h.admin(["credits", "topup"], { org: h.org, "micro-eur": "1" });
  clock.advance(6_000);
  await chat(h);
  await chat(h);
  await settled(h);
  await until("the third alert", () => receiver.received.length >= 3);
  const after = events(receiver);
  assert.equal(after.length, 3);
  assert.equal(after[2]!.event.type, "balance.below_threshold");
  assert.ok(after[2]!.verified);
  assert.notEqual(after[2]!.id, first.find((e) => e.event.type.startsWith("balance"))!.id);
});

Deno.test("spend alerts — where SMTP is configured, the alert is also mailed (amounts, never the prompt)", async () => {
  await using smtp = await startSmtpCapture();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    credits: CREDITS,
    env: { SOVRA_SMTP_URL: smtp.url, SOVRA_SMTP_FROM: "alerts@sovra.example" },
  });
  await h.admin(["alerts", "set"], {
    org: h.org,
    email: "billing@customer.example",
    "balance-below-micro-eur": String(CREDITS - 1),
  });
  await chat(h);
  await settled(h);
  const mail = await smtp.waitForMail((m) => m.to.includes("billing@customer.example"));
  assert.match(mail.subject, /^Sovra alert: the balance is below EUR 0\.999999$/);
  assert.match(mail.text, new RegExp(`threshold_micro_eur: ${CREDITS - 1}`));
  assert.ok(!mail.text.includes(MARKER) && !mail.text.includes("Recipe"), "no prompt");
  const [delivery] = await h.store.alerts!.listDeliveries(h.org, 5);
  assert.equal(delivery?.channel, "email");
  assert.equal(delivery?.status, "delivered");
  assert.equal(smtp.mails.length, 1);
});

Deno.test("spend alerts — a key's budget at 80 % and at 100 %: one signed webhook each", async () => {
  await using receiver = startWebhookReceiver();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    env: { SOVRA_WEBHOOK_ALLOW_LOCAL: "true" },
  });
  await h.admin(["alerts", "set"], { org: h.org, "webhook-url": receiver.url });
  receiver.secret = String((await h.admin(["alerts", "secret"], { org: h.org })).secret);
  const capped = await h.admin(["key", "create"], {
    org: h.org,
    name: "capped",
    budget: "250",
    period: "month",
  });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${capped.key}`, "content-type": "application/json" },
      body: JSON.stringify(chatBody("acme/chat", `Recipe: ${MARKER}`)),
    });
    statuses.push(res.status);
    await res.body?.cancel();
    await settled(h);
  }
  // About 100 µEUR a request: 80 % after the second, 100 % after the third, the fourth refused.
  assert.deepEqual(statuses, [200, 200, 200, 402]);
  await until("two budget alerts", () => receiver.received.length >= 2);
  const alerts = events(receiver);
  assert.equal(alerts.length, 2);
  assert.deepEqual(alerts.map((a) => a.event.data.percent), [80, 100]);
  for (const a of alerts) {
    assert.ok(a.verified);
    assert.equal(a.event.type, "key_budget.threshold_reached");
    assert.equal(a.event.data.key_id, capped.id);
    assert.equal(a.event.data.key_name, "capped");
    assert.equal(a.event.data.budget_micro_eur, 250);
    assert.equal(a.event.data.period, "month");
    assert.ok(!a.body.includes(MARKER));
  }
});
