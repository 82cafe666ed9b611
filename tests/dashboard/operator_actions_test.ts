/**
 * The operator's containment actions, through the dashboard's JSON API and the request API of a
 * real gateway beside it: suspending an organization (its keys get 403 `organization_suspended`
 * within the key cache time, other organizations' keys keep working; restoring brings them back),
 * revoking any organization's key, and correcting a grant with a compensating ledger entry.
 * Members are refused each of them; each is audited.
 */
import assert from "node:assert/strict";
import { ApiClient, MODEL, startDashboardHarness } from "./support.ts";

function chat(url: string, key: string) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Hi" }] }),
  });
}

/** Requests until one answers `status` (the key cache is 1 s here); the last answer. */
async function untilStatus(url: string, key: string, status: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await chat(url, key);
    const body = await res.json();
    if (res.status === status || Date.now() > deadline) return { status: res.status, body };
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test("operator — suspends an organization: its keys get 403 organization_suspended, others work; restore", async () => {
  await using d = await startDashboardHarness({ keyCacheSeconds: 1 });
  await d.user("op@example.eu", undefined, undefined, true);
  await d.user("owner@example.eu", d.h.org, "owner");
  const other = await d.h.admin(["key", "create"], { org: d.otherOrg });
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  assert.equal((await chat(d.h.url, d.h.key)).status, 200);

  const denied = await owner.post(`/api/operator/orgs/${d.h.org}/suspend`, {});
  assert.equal(denied.status, 403, "an owner cannot suspend");
  const suspended = await op.post(`/api/operator/orgs/${d.h.org}/suspend`, {
    reason: "leaked key in a public repo",
  });
  assert.equal(suspended.status, 200, JSON.stringify(suspended.body));
  assert.equal(suspended.body.suspended, true);

  const refused = await untilStatus(d.h.url, d.h.key, 403);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.code, "organization_suspended");
  assert.equal(typeof refused.body.error.message, "string");
  assert.equal(typeof refused.body.error.type, "string");
  assert.equal((await chat(d.h.url, String(other.key))).status, 200, "another org's key works");
  const models = await fetch(`${d.h.url}/v1/models`, {
    headers: { authorization: `Bearer ${d.h.key}` },
  });
  assert.equal(models.status, 403, "every authenticated route");
  await models.body?.cancel();
  const openapi = await (await fetch(`${d.h.url}/openapi.json`)).json();
  assert.match(
    openapi.paths["/v1/chat/completions"].post.responses["403"].description,
    /organization_suspended/,
  );
  // The refusal is in the organization's request log (a zero-cost row with its code).
  await d.h.flushed();
  const logged = await owner.get(`/api/orgs/${d.h.org}/requests?status=403`);
  const row = logged.body.data.find((r: { error_code?: string }) =>
    r.error_code === "organization_suspended"
  );
  assert.equal(row?.cost_micro_eur, 0, JSON.stringify(logged.body));
  // The organization's members see it on their pages.
  const page = await owner.request("GET", `/orgs/${d.h.org}/overview`);
  assert.match(await page.text(), /suspended by the operator/);

  const restored = await op.post(`/api/operator/orgs/${d.h.org}/restore`, {});
  assert.equal(restored.status, 200);
  assert.equal((await untilStatus(d.h.url, d.h.key, 200)).status, 200);
  const audit = await op.get(`/api/orgs/${d.h.org}/audit`);
  const entries = audit.body.data.filter((e: { action: string }) => e.action.startsWith("org."));
  assert.deepEqual(entries.map((e: { action: string }) => e.action).slice(0, 2), [
    "org.restored",
    "org.suspended",
  ]);
  assert.equal(entries[1].detail.reason, "leaked key in a public repo");
  assert.equal(entries[1].actor, "op@example.eu");
  assert.equal((await op.post("/api/operator/orgs/org_nope/suspend", {})).status, 404);
});

Deno.test("operator — revokes any organization's key without being a member; audited in that organization", async () => {
  await using d = await startDashboardHarness({ keyCacheSeconds: 1 });
  await d.user("op@example.eu", undefined, undefined, true);
  await d.user("viewer@example.eu", d.h.org, "viewer");
  const viewer = await ApiClient.signedIn(d.url, "viewer@example.eu");
  assert.equal((await viewer.post(`/api/operator/keys/${d.h.keyId}/revoke`)).status, 403);
  assert.equal(
    (await viewer.post(`/api/orgs/${d.h.org}/keys/${d.h.keyId}/revoke`)).status,
    403,
    "a viewer cannot revoke",
  );
  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  const revoked = await op.post(`/api/operator/keys/${d.h.keyId}/revoke`);
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  assert.deepEqual([revoked.body.org, revoked.body.state], [d.h.org, "revoked"]);
  assert.equal((await untilStatus(d.h.url, d.h.key, 401)).status, 401);
  assert.equal((await op.post("/api/operator/keys/key_nope/revoke")).status, 404);
  // The organization's keys page offers the operator the revoke button too.
  const second = await d.h.admin(["key", "create"], { org: d.h.org, name: "second" });
  const viaOrg = await op.post(`/api/orgs/${d.h.org}/keys/${second.id}/revoke`);
  assert.equal(viaOrg.status, 200);
  const audit = await op.get(`/api/orgs/${d.h.org}/audit`);
  const revocations = audit.body.data.filter((e: { action: string }) => e.action === "key.revoked");
  assert.deepEqual(
    revocations.map((e: { target: string; actor: string }) => [e.target, e.actor]),
    [[String(second.id), "op@example.eu"], [d.h.keyId, "op@example.eu"]],
  );
  // Revoking it again changes nothing and is not audited twice.
  await op.post(`/api/operator/keys/${d.h.keyId}/revoke`);
  const after = await op.get(`/api/orgs/${d.h.org}/audit`);
  assert.equal(
    after.body.data.filter((e: { action: string }) => e.action === "key.revoked").length,
    2,
  );
});

Deno.test("operator — corrects a grant with a compensating entry and a reason; the grant stays; exact micro-EUR", async () => {
  await using d = await startDashboardHarness({ credits: 0 });
  await d.user("op@example.eu", undefined, undefined, true);
  await d.user("owner@example.eu", d.h.org, "owner");
  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const granted = await op.post(`/api/orgs/${d.h.org}/credits/grants`, {
    amount_micro_eur: 999_000_000,
    note: "welcome",
  });
  assert.equal(granted.status, 201);
  const before = (await op.get(`/api/orgs/${d.h.org}/credits`)).body;
  const grantLine = before.lines.find((l: { kind: string }) => l.kind === "grant");
  const base = `/api/orgs/${d.h.org}/credits/corrections`;
  assert.equal(
    (await owner.post(base, { amount_micro_eur: -1, reason: "x" })).status,
    403,
    "an owner cannot correct",
  );
  assert.equal((await op.post(base, { amount_micro_eur: -1, reason: " " })).status, 400);
  assert.equal((await op.post(base, { amount_micro_eur: 0, reason: "zero" })).status, 400);
  const tooMuch = await op.post(base, { amount_micro_eur: -999_000_001, reason: "all and more" });
  assert.equal(tooMuch.status, 400);
  assert.equal(tooMuch.body.error.param, "amount_micro_eur");
  const unknownGrant = await op.post(base, {
    amount_micro_eur: -1,
    reason: "x",
    corrects: "led_unknown",
  });
  assert.equal(unknownGrant.status, 400);
  assert.equal(unknownGrant.body.error.param, "corrects");

  const corrected = await op.post(base, {
    amount_micro_eur: -990_000_001,
    reason: "typed 999 EUR for 8.999999",
    corrects: grantLine.id,
  });
  assert.equal(corrected.status, 201, JSON.stringify(corrected.body));
  assert.equal(corrected.body.balance_micro_eur, before.balance_micro_eur - 990_000_001);
  const after = (await owner.get(`/api/orgs/${d.h.org}/credits`)).body;
  assert.equal(after.balance_micro_eur, before.balance_micro_eur - 990_000_001);
  const correction = after.lines.find((l: { kind: string }) => l.kind === "correction");
  assert.deepEqual(
    [correction.amount_micro_eur, correction.note, correction.corrects, correction.actor],
    [-990_000_001, "typed 999 EUR for 8.999999", grantLine.id, "op@example.eu"],
  );
  const grantAfter = after.lines.find((l: { id?: string }) => l.id === grantLine.id);
  assert.deepEqual(grantAfter, grantLine, "the original entry is unchanged");
  const audit = await op.get(`/api/orgs/${d.h.org}/audit`);
  const entry = audit.body.data.find((e: { action: string }) => e.action === "credits.corrected");
  assert.deepEqual(entry.detail, {
    amount_micro_eur: -990_000_001,
    reason: "typed 999 EUR for 8.999999",
    corrects: grantLine.id,
  });
});
