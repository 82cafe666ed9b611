/**
 * Alert delivery (`src/alerts/alert_sender.ts`) against a real receiver on 127.0.0.1: a
 * receiver that fails is tried again, with back-off, under the same `webhook-id` and a fresh
 * valid signature each time, until it answers 2xx; one that never does is given up after the
 * bounded schedule and logged as failed, every attempt in the delivery log.
 */
import assert from "node:assert/strict";
import { AlertSender } from "../../src/alerts/alert_sender.ts";
import { defaultAlertSettings, newSigningSecret } from "../../src/alerts/alert_settings.ts";
import { silentLogger } from "../../src/log.ts";
import { openTestStore } from "../helpers/kv.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import { until } from "../helpers/until.ts";

async function setup(script: number[], retryDelaysMs: number[]) {
  const store = await openTestStore();
  const receiver = startWebhookReceiver();
  receiver.secret = newSigningSecret();
  receiver.script = script;
  const settings = {
    ...defaultAlertSettings("org_a", Date.now()),
    webhook_url: receiver.url,
    secret: receiver.secret,
  };
  const sender = new AlertSender({
    store: store.alerts!,
    log: silentLogger,
    allowLocal: true,
    retryDelaysMs,
  });
  const event = {
    type: "balance.below_threshold" as const,
    summary: "the balance is below EUR 5.00",
    data: { organization: "org_a", threshold_micro_eur: 5_000_000, balance_micro_eur: 4_999_999 },
  };
  return {
    store,
    receiver,
    sender,
    send: () => sender.send(settings, event),
    async [Symbol.asyncDispose]() {
      sender.close();
      await receiver[Symbol.asyncDispose]();
      await store[Symbol.asyncDispose]();
    },
  };
}

Deno.test("AlertSender — retried with the same webhook-id until a 2xx, each attempt signed and logged", async () => {
  await using s = await setup([503, 500], [20, 40, 80]);
  const [delivery] = await s.send();
  await until("delivered", async () => {
    const [logged] = await s.store.alerts!.listDeliveries("org_a", 1);
    return logged?.status === "delivered";
  });
  const received = s.receiver.received;
  assert.deepEqual(received.map((r) => r.answered), [503, 500, 204]);
  assert.ok(received.every((r) => r.id === delivery!.id), "one webhook-id for every attempt");
  assert.ok(received.every((r) => r.verified), "every attempt's signature verifies");
  assert.ok(received.every((r) => r.body === received[0]!.body), "the same body");
  const [logged] = await s.store.alerts!.listDeliveries("org_a", 1);
  assert.deepEqual(logged!.attempts.map((a) => a.status), [503, 500, 204]);
  assert.equal(logged!.next_attempt_at, null);
});

Deno.test("AlertSender — a receiver that never accepts is given up after the bounded retries", async () => {
  await using s = await setup([500, 500, 500, 500, 500], [10, 10]);
  await s.send();
  await until("failed", async () => {
    const [logged] = await s.store.alerts!.listDeliveries("org_a", 1);
    return logged?.status === "failed";
  });
  await s.sender.idle();
  assert.equal(s.receiver.received.length, 3, "the first attempt and two retries");
  const [logged] = await s.store.alerts!.listDeliveries("org_a", 1);
  assert.deepEqual(logged!.attempts.map((a) => a.error), [
    "the receiver answered 500",
    "the receiver answered 500",
    "the receiver answered 500",
  ]);
  assert.deepEqual(await s.store.alerts!.pendingDeliveries(10), []);
});
