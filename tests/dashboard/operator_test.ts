/** The operator: every organization, creating one with credit; members get 403 there. */
import assert from "node:assert/strict";
import { ApiClient, startDashboardHarness } from "./support.ts";

Deno.test("operator — lists every organization, creates one with credit, reads any org but manages no keys", async () => {
  await using d = await startDashboardHarness();
  await d.user("op@example.eu", undefined, undefined, true);
  await d.user("owner@example.eu", d.h.org, "owner");
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  assert.equal((await owner.get("/api/operator/orgs")).status, 403);
  assert.equal((await owner.post("/api/operator/orgs", { name: "Mine" })).status, 403);
  assert.equal((await owner.get("/api/operator/audit")).status, 403);
  assert.equal((await owner.request("GET", "/operator")).status, 403);

  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  const list = await op.get("/api/operator/orgs");
  assert.equal(list.status, 200);
  const ids = list.body.data.map((o: { id: string }) => o.id);
  assert.ok(ids.includes(d.h.org) && ids.includes(d.otherOrg));
  const created = await op.post("/api/operator/orgs", {
    name: "Acme GmbH",
    credits_micro_eur: 25_000_000,
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.balance_micro_eur, 25_000_000);
  assert.equal((await op.post("/api/operator/orgs", { name: " " })).status, 400);
  const ledger = await op.get(`/api/orgs/${created.body.id}/credits`);
  assert.equal(ledger.body.lines[0].amount_micro_eur, 25_000_000);
  assert.equal((await op.get(`/api/orgs/${d.h.org}/overview`)).status, 200);
  assert.equal((await op.post(`/api/orgs/${d.h.org}/keys`, { name: "x" })).status, 403);
  assert.equal((await op.get(`/api/orgs/${d.h.org}/members`)).status, 403);
  assert.equal((await op.get("/api/orgs/org_doesnotexist/overview")).status, 404);
  await new ApiClient(d.url).post("/api/login", { email: "nobody@example.eu", password: "x" });
  const globalAudit = await op.get("/api/operator/audit");
  assert.equal(globalAudit.status, 200);
  const failed = globalAudit.body.data.find((e: { action: string }) => e.action === "login.failed");
  assert.equal(failed.actor, "nobody@example.eu");
  const page = await op.request("GET", "/operator");
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.ok(html.includes("Acme GmbH") && html.includes("25.00"));
});
