/**
 * The spend-alert area's semantics (`src/state/alert_store.ts`) on Deno KV and on PostgreSQL:
 * settings read back whole; a crossing is claimed by the first of many concurrent callers only
 * (one alert whichever instance saw it); deliveries listed newest first per organization, and
 * only the pending ones offered for resuming.
 */
import assert from "node:assert/strict";
import type { AlertDelivery, AlertStore } from "../../src/state/alert_store.ts";
import { defaultAlertSettings } from "../../src/alerts/alert_settings.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { closing } from "../helpers/dispose.ts";

function delivery(id: string, org: string, status: AlertDelivery["status"]): AlertDelivery {
  return {
    id,
    org,
    created: "2026-12-02T10:00:00.000Z",
    type: "balance.below_threshold",
    channel: "webhook",
    body: "{}",
    status,
    attempts: [],
    next_attempt_at: status === "pending" ? 1 : null,
  };
}

async function alertContract(area: AlertStore): Promise<void> {
  assert.equal(await area.getAlertSettings("org_a"), undefined);
  const settings = {
    ...defaultAlertSettings("org_a", Date.now()),
    webhook_url: "https://example.eu/hook",
    secret: "whsec_c2VjcmV0",
    balance_below_micro_eur: 5_000_000,
  };
  await area.putAlertSettings(settings);
  assert.deepEqual(await area.getAlertSettings("org_a"), settings);

  // 20 concurrent claims of one crossing: exactly one wins; another crossing is its own.
  const now = Date.now();
  const claims = await Promise.all(
    Array.from({ length: 20 }, () => area.claimAlert("org_a", "balance:5000000:10", now)),
  );
  assert.equal(claims.filter(Boolean).length, 1);
  assert.equal(await area.claimAlert("org_a", "balance:5000000:10", now), false);
  assert.equal(await area.claimAlert("org_a", "balance:5000000:20", now), true);
  assert.equal(await area.claimAlert("org_b", "balance:5000000:10", now), true);

  await area.putDelivery(delivery("msg_01", "org_a", "pending"));
  await area.putDelivery(delivery("msg_02", "org_a", "pending"));
  await area.putDelivery(delivery("msg_03", "org_b", "pending"));
  await area.putDelivery({ ...delivery("msg_01", "org_a", "delivered"), attempts: [] });
  assert.deepEqual((await area.listDeliveries("org_a", 10)).map((d) => [d.id, d.status]), [
    ["msg_02", "pending"],
    ["msg_01", "delivered"],
  ]);
  assert.deepEqual((await area.listDeliveries("org_a", 1)).map((d) => d.id), ["msg_02"]);
  assert.deepEqual((await area.pendingDeliveries(10)).map((d) => d.id), ["msg_02", "msg_03"]);
}

Deno.test("alert area — Deno KV keeps the contract", async () => {
  await using store = closing(await openKvStore(":memory:"));
  assert.ok(store.alerts);
  await alertContract(store.alerts);
});

Deno.test("alert area — PostgreSQL keeps the contract", async () => {
  await using cluster = await startPostgres();
  await using store = closing(
    await openPgStore(await cluster.database(), { spillPath: undefined }),
  );
  await alertContract(store.alerts);
});
