/**
 * A key's budget from the dashboard (docs/costs.md "Per-key budgets"): set at creation or on the
 * key's page (JSON API and form), shown with the period's spend as a bar, enforced by the gateway
 * (402 key_budget_exceeded), removed again; audited; viewers see it but cannot change it.
 */
import assert from "node:assert/strict";
import { ApiClient, MODEL, startDashboardHarness } from "./support.ts";

async function chat(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("key budget — set on create and on the key's page, its spend bar, enforced, removed, audited", async () => {
  await using d = await startDashboardHarness({ keyCacheSeconds: 1 });
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("viewer@example.eu", d.h.org, "viewer");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const base = `/api/orgs/${d.h.org}/keys`;

  const bad = await c.post(base, { name: "ci", budget_micro_eur: 100, budget_period: "year" });
  assert.equal(bad.status, 400);
  const created = await c.post(base, { name: "ci", budget_micro_eur: 1, budget_period: "week" });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id: string = created.body.id;
  assert.equal(await chat(d.h.url, created.body.key), 200, "the first request starts under it");
  await d.h.flushed();
  assert.equal(await chat(d.h.url, created.body.key), 402);

  const shown = await c.get(`${base}/${id}`);
  assert.equal(shown.body.budget.budget_micro_eur, 1);
  assert.equal(shown.body.budget.budget_period, "week");
  assert.ok(shown.body.budget.spent_micro_eur > 1);
  assert.equal(new Date(shown.body.budget.period_start).getUTCDay(), 1, "weeks start on Monday");

  const page = await (await c.request("GET", `/orgs/${d.h.org}/keys/${id}`)).text();
  assert.match(page, /<meter id="key-budget-meter"/);
  assert.match(page, /this week \(from Monday, UTC\)/);

  const raised = await c.json("PATCH", `${base}/${id}`, {
    budget_micro_eur: 1_000_000,
    budget_period: "month",
  });
  assert.equal(raised.status, 200, JSON.stringify(raised.body));
  assert.equal(raised.body.budget.budget_period, "month");
  const removed = await c.json("PATCH", `${base}/${id}`, { budget_micro_eur: null });
  assert.equal(removed.body.budget, null);

  const viewer = await ApiClient.signedIn(d.url, "viewer@example.eu");
  const refused = await viewer.json("PATCH", `${base}/${id}`, { budget_micro_eur: 5 });
  assert.equal(refused.status, 403);
  const audit = await c.get(`/api/orgs/${d.h.org}/audit`);
  const budgetEntries = audit.body.data.filter((e: { action: string }) =>
    e.action === "key.budget_set"
  );
  assert.equal(budgetEntries.length, 2);
});
