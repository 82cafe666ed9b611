/**
 * The dashboard unchanged on PostgreSQL: log in, create a key that works on the request API at
 * once, grant credits (ledger + balance), read usage and the audit log, revoke the key.
 */
import assert from "node:assert/strict";
import { ApiClient, MODEL, startDashboardHarness } from "../dashboard/support.ts";
import { startPostgres } from "../helpers/postgres.ts";

Deno.test("dashboard on postgres — keys, credits, usage, audit through the JSON API", async () => {
  const cluster = await startPostgres();
  const dir = await Deno.makeTempDir({ prefix: "sovra-pg-dash-" });
  const d = await startDashboardHarness({
    env: {
      SOVRA_DATABASE_URL: await cluster.database(),
      SOVRA_SPILL_PATH: `${dir}/spill.jsonl`,
    },
  });
  try {
    assert.equal(d.h.store.health?.().backend, "postgres");
    await d.user("owner@example.eu", d.h.org, "owner");
    await d.user("ops@example.eu", undefined, undefined, true);
    const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
    const created = await owner.post(`/api/orgs/${d.h.org}/keys`, { name: "pg", rpm: 60 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const chat = await fetch(`${d.h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${created.body.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(chat.status, 200);
    await chat.body?.cancel();
    await d.h.flushed();

    const before = (await d.h.store.getOrg(d.h.org))!.balance_micro_eur;
    const ops = await ApiClient.signedIn(d.url, "ops@example.eu");
    const grant = await ops.post(`/api/orgs/${d.h.org}/credits/grants`, {
      amount_micro_eur: 2_500,
      note: "pilot",
    });
    assert.equal(grant.status, 201, JSON.stringify(grant.body));
    assert.equal((await d.h.store.getOrg(d.h.org))!.balance_micro_eur, before + 2_500);
    const ledger = await owner.get(`/api/orgs/${d.h.org}/credits`);
    assert.equal(ledger.status, 200);
    assert.ok(JSON.stringify(ledger.body).includes("pilot"), JSON.stringify(ledger.body));

    const requests = await owner.get(`/api/orgs/${d.h.org}/requests`);
    assert.equal(requests.status, 200);
    assert.ok(requests.body.data.some((r: { key_id: string }) => r.key_id === created.body.id));
    const usage = await owner.get(`/api/orgs/${d.h.org}/usage`);
    assert.equal(usage.status, 200);
    assert.ok(JSON.stringify(usage.body).includes(new Date().toISOString().slice(0, 10)));

    const revoked = await owner.post(`/api/orgs/${d.h.org}/keys/${created.body.id}/revoke`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const audit = await owner.get(`/api/orgs/${d.h.org}/audit`);
    const actions = audit.body.data.map((e: { action: string }) => e.action);
    for (const action of ["key.created", "credits.granted", "key.revoked"]) {
      assert.ok(actions.includes(action), `${action} in ${actions}`);
    }
    assert.equal((await owner.post("/api/logout")).status < 400, true);
  } finally {
    await d.close();
    await cluster.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
