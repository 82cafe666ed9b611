/**
 * A key budget's bound under load ("Per-key budgets" in docs/costs.md): decided at admission
 * the way the balance is, against every isolate's holds (`SOVRA_WORKERS` > 1), so 1,000
 * concurrent requests (half streamed) on one key leave its period spend under its budget plus one
 * hold — though the organization has credit to spare. Through the real process.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import {
  type Account,
  burst,
  INSTANCE_HOLD as HOLD,
  INSTANCE_PRICING,
  instanceChat,
  startInstances,
} from "../helpers/instances.ts";
import { until } from "../helpers/until.ts";
import { budgetWindow } from "../../src/util/budget_period.ts";

const BUDGET = 10_000;

Deno.test("key budget — SOVRA_WORKERS=2, 1,000 concurrent requests: the key's spend stays under budget + one hold", async () => {
  await using setup = await startInstances({
    models: [chatModel("acme/chat", "sim-chat+slow-200", { pricing: INSTANCE_PRICING })],
    accounts: [{ credits: 1_000_000_000, budget: { micro: BUDGET, period: "month" } }],
  });
  const [capped] = setup.accounts as [Account];
  const { url } = await setup.start({ SOVRA_WORKERS: "2" });
  const statuses = await burst(
    1_000,
    (i, client) => instanceChat(url, capped, client, i % 2 === 1),
  );
  assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 402), []);
  const served = statuses.filter((s) => s === 200).length;
  assert.ok(served > 0 && served < 1_000, `served ${served}`);
  const store = await setup.store();
  await until("every served request settled", async () => {
    const rows = await store.listRequests(capped.org, 1_000);
    return rows.filter((r) => r.status === 200).length === served;
  }, 20_000);
  const rows = await store.listRequests(capped.org, 1_000);
  const refused = rows.filter((r) => r.status === 402);
  assert.ok(refused.every((r) => r.error_code === "key_budget_exceeded"));
  const spent = Number(
    await store.readKeySpend(capped.keyId, budgetWindow("month", Date.now()).id),
  );
  const billed = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
  assert.equal(spent, billed, "the key's period spend is the sum of its requests' costs");
  assert.ok(
    spent < BUDGET + HOLD,
    `spent ${spent} µEUR, bound ${BUDGET + HOLD} (served ${served})`,
  );
  console.log(JSON.stringify({ measured: "key budget overshoot", served, spent, budget: BUDGET }));
});
