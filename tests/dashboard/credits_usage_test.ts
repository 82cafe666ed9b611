/** Overview, credits (operator grants, ledger, low-balance warning), usage and request exports. */
import assert from "node:assert/strict";
import { ApiClient, BROKEN_MODEL, MODEL, startDashboardHarness } from "./support.ts";

async function chat(url: string, key: string, user?: string) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: MODEL,
      messages: [{ role: "user", content: "hello there" }],
      ...(user ? { user } : {}),
    }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("overview and usage — spend, requests, errors and per-day series follow the request API", async () => {
  await using d = await startDashboardHarness();
  await d.user("viewer@example.eu", d.h.org, "viewer");
  const c = await ApiClient.signedIn(d.url, "viewer@example.eu");
  const before = await c.get(`/api/orgs/${d.h.org}/overview`);
  assert.equal(before.status, 200);
  assert.equal(before.body.requests_today, 0);
  assert.equal(before.body.daily_cost.length, 30);
  assert.equal(await chat(d.h.url, d.h.key, "end-user-7"), 200);
  assert.equal(await chat(d.h.url, d.h.key), 200);
  const bad = await fetch(`${d.h.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${d.h.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: BROKEN_MODEL, messages: [{ role: "user", content: "x" }] }),
  });
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  await d.h.flushed();
  const rows = await d.h.store.listRequests(d.h.org, 10);
  const spent = rows.reduce((s, r) => s + r.cost_micro_eur, 0);
  assert.ok(spent > 0);
  const after = await c.get(`/api/orgs/${d.h.org}/overview`);
  assert.equal(after.body.balance_micro_eur, before.body.balance_micro_eur - spent);
  assert.equal(after.body.spend_today_micro_eur, spent);
  assert.equal(after.body.spend_month_micro_eur, spent);
  assert.equal(after.body.requests_today, rows.length);
  assert.equal(rows.length, 3);
  assert.equal(after.body.errors_today, 1);
  assert.equal(after.body.error_rate_today, 1 / 3);
  assert.equal(after.body.daily_cost.at(-1).cost_micro_eur, spent);

  for (const days of [7, 30, 90]) {
    const usage = await c.get(`/api/orgs/${d.h.org}/usage?days=${days}`);
    assert.equal(usage.status, 200);
    assert.equal(usage.body.days.length, days);
    assert.equal(usage.body.totals.cost_micro_eur.at(-1), spent);
    assert.equal(usage.body.totals.requests.at(-1), rows.length);
    assert.equal(usage.body.by_key[d.h.keyId].cost_micro_eur.at(-1), spent);
    assert.ok(usage.body.by_model[MODEL].tokens.at(-1) > 0);
  }
  assert.equal((await c.get(`/api/orgs/${d.h.org}/usage?days=12`)).status, 400);

  const filtered = await c.get(`/api/orgs/${d.h.org}/requests?user=end-user-7`);
  assert.equal(filtered.body.data.length, 1);
  assert.equal(filtered.body.data[0].user, "end-user-7");
  const byKey = await c.get(`/api/orgs/${d.h.org}/requests?key=${d.h.keyId}&status=ok`);
  assert.equal(byKey.body.data.length, 2);
  const errors = await c.get(`/api/orgs/${d.h.org}/requests?status=error`);
  assert.deepEqual(errors.body.data.map((r: { requested_model: string }) => r.requested_model), [
    BROKEN_MODEL,
  ]);
  const csv = await c.request("GET", `/api/orgs/${d.h.org}/requests.csv?model=${MODEL}`);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
  const lines = (await csv.text()).trim().split("\r\n");
  assert.equal(
    lines[0],
    [
      "id,created,org,key_id,user,endpoint,requested_model,served_model,provider,status",
      "latency_ms,prompt_tokens,completion_tokens,total_tokens,audio_seconds,characters",
      "cost_micro_eur,estimated,stream,fallbacks",
      "cached_tokens,cache_write_tokens,cache_write_1h_tokens,cache_savings_micro_eur",
      "error_code,refused_count",
    ].join(","),
  );
  assert.equal(lines.length, 3);
  assert.ok(!lines.join("\n").includes("hello there"), "metadata only, never content");
});

Deno.test("credits — only operators grant; a grant ends 402 and shows in the ledger and audit log", async () => {
  await using d = await startDashboardHarness({ credits: 1 });
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("op@example.eu", undefined, undefined, true);
  assert.equal(await chat(d.h.url, d.h.key), 200, "the last micro-EUR buys one request");
  await d.h.flushed();
  let status = 0;
  for (let i = 0; i < 20 && status !== 402; i++) {
    status = await chat(d.h.url, d.h.key);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 402);

  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const refused = await owner.post(`/api/orgs/${d.h.org}/credits/grants`, {
    amount_micro_eur: 10_000_000,
  });
  assert.equal(refused.status, 403);

  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  const zero = await op.post(`/api/orgs/${d.h.org}/credits/grants`, { amount_micro_eur: 0 });
  assert.equal(zero.status, 400);
  const granted = await op.post(`/api/orgs/${d.h.org}/credits/grants`, {
    amount_micro_eur: 10_000_000,
    note: "invoice 42",
  });
  assert.equal(granted.status, 201, JSON.stringify(granted.body));
  const org = await d.h.store.getOrg(d.h.org);
  assert.equal(granted.body.balance_micro_eur, org!.balance_micro_eur);
  assert.ok(org!.balance_micro_eur > 9_000_000);

  let after = 0;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    after = await chat(d.h.url, d.h.key);
    if (after === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(after, 200, "the top-up ends the 402 answers");

  await d.h.flushed();
  const ledger = await owner.get(`/api/orgs/${d.h.org}/credits`);
  const grant = ledger.body.lines.find((l: { kind: string }) => l.kind === "grant");
  assert.equal(grant.amount_micro_eur, 10_000_000);
  assert.equal(grant.actor, "op@example.eu");
  assert.equal(grant.note, "invoice 42");
  const spend = ledger.body.lines.find((l: { kind: string }) => l.kind === "spend");
  assert.ok(spend.amount_micro_eur < 0);
  const audit = await owner.get(`/api/orgs/${d.h.org}/audit`);
  const entry = audit.body.data.find((e: { action: string }) => e.action === "credits.granted");
  assert.equal(entry.actor, "op@example.eu");
  assert.equal(entry.detail.amount_micro_eur, 10_000_000);
});

Deno.test("credits — the owner's low-balance threshold puts a warning on every page", async () => {
  await using d = await startDashboardHarness({ credits: 2_000_000 });
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("admin@example.eu", d.h.org, "admin");
  const admin = await ApiClient.signedIn(d.url, "admin@example.eu");
  const refused = await admin.json("PATCH", `/api/orgs/${d.h.org}/settings`, {
    low_balance_micro_eur: 5_000_000,
  });
  assert.equal(refused.status, 403);
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const page = async (path: string) => await (await owner.request("GET", path)).text();
  assert.ok(!(await page(`/orgs/${d.h.org}/overview`)).includes("Low balance"));
  const set = await owner.json("PATCH", `/api/orgs/${d.h.org}/settings`, {
    low_balance_micro_eur: 5_000_000,
  });
  assert.equal(set.status, 200);
  assert.equal(set.body.low_balance_micro_eur, 5_000_000);
  const ov = await owner.get(`/api/orgs/${d.h.org}/overview`);
  assert.equal(ov.body.low_balance, true);
  for (const p of ["overview", "keys", "usage", "credits", "members", "audit"]) {
    assert.match(await page(`/orgs/${d.h.org}/${p}`), /Low balance: €\s2\.00 is below/, p);
  }
});
