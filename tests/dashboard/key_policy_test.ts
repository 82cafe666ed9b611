/**
 * A key's narrowing through the dashboard's JSON API (`GET`/`PUT /api/orgs/:org/keys/:key/policy`)
 * and its page (`/orgs/:org/policies/keys/:key`, listed on the policies page), on Deno KV and on
 * PostgreSQL: only the fields given change; bad values are refused; viewers read
 * only; an allow-list naming no model is refused (for the organization too); another
 * organization's key is not found; every change is in the policy's trail (actor
 * `dashboard:<e-mail>`) and the control-plane log. A key policy that leaves the organization's
 * remote guardrail classifier no route is saved with a warning (not refused), and the request API
 * then does what the warning says: fail-closed, the key's borderline request gets 503 and the text
 * goes nowhere.
 */
import assert from "node:assert/strict";
import { ApiClient, startDashboardHarness } from "./support.ts";
import { borderlineText, moderationModel } from "../policy/policy_support.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { DEFAULT_ORG_POLICY } from "../../src/state/policy_store.ts";
import type { Store } from "../../src/state/store.ts";

const GUARD = "acme/guard";
const { text: BORDERLINE } = borderlineText();

async function roundTrip(env: Record<string, string> = {}) {
  await using d = await startDashboardHarness({
    models: [moderationModel(GUARD, "guard+jailbreak-97", "sim-b")],
    env,
  });
  const { org, keyId } = d.h;
  await d.h.store.putOrgPolicy(org, {
    ...DEFAULT_ORG_POLICY,
    guardrail: "block",
    guardrail_remote: { model: GUARD, timeout_ms: 1500, on_error: "closed" },
  }, "test");
  await d.user("owner@example.eu", org, "owner");
  await d.user("viewer@example.eu", org, "viewer");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const base = `/api/orgs/${org}/keys/${keyId}/policy`;

  const empty = await c.get(base);
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body.policy, {});
  assert.deepEqual(empty.body.warnings, []);

  // A narrowing that leaves the classifier a route: no warning.
  const stronger = await c.json("PUT", base, { guardrail: "block" });
  assert.equal(stronger.status, 200);
  assert.deepEqual(stronger.body.policy, { guardrail: "block" });
  assert.deepEqual(stronger.body.warnings, []);

  // Blocking the classifier's only provider (sim-b; the chat model is on sim-a) for this key: saved, with a warning.
  const blocked = await c.json("PUT", base, { blocked_providers: ["sim-b"] });
  assert.equal(blocked.status, 200, "warned, not refused");
  assert.deepEqual(blocked.body.policy, { guardrail: "block", blocked_providers: ["sim-b"] });
  assert.equal(blocked.body.warnings.length, 1);
  const [warning] = blocked.body.warnings as string[];
  assert.match(warning!, new RegExp(`classifier '${GUARD}' no route`));
  assert.match(warning!, /blocked_providers \(key policy\) lists 'sim-b'/);
  assert.match(warning!, /503 guardrail_unavailable/);
  assert.deepEqual(
    await d.h.store.getKeyPolicy(keyId),
    { guardrail: "block", blocked_providers: ["sim-b"] },
    "stored",
  );
  assert.deepEqual((await c.get(base)).body.warnings, [warning], "reading it warns too");
  assert.deepEqual(
    (await c.get(`/api/orgs/${org}/policy`)).body.warnings,
    [warning],
    "the organization's policy lists it",
  );

  // What the warning says, through the request API: 503, and the classifier got nothing.
  const res = await fetch(`${d.h.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${d.h.key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "acme/chat",
      messages: [{ role: "user", content: BORDERLINE }],
    }),
  });
  assert.equal(res.status, 503);
  assert.equal(
    ((await res.json()) as { error: { code: string } }).error.code,
    "guardrail_unavailable",
  );
  assert.deepEqual(d.h.sim.requests, [], "the text went nowhere");

  // Fail-open says what fail-open does.
  await d.h.store.putOrgPolicy(org, {
    ...DEFAULT_ORG_POLICY,
    guardrail: "block",
    guardrail_remote: { model: GUARD, timeout_ms: 1500, on_error: "open" },
  }, "test");
  const open = await c.get(base);
  assert.match(open.body.warnings[0], /local scan alone/);

  // Unblocking: the warning goes.
  const unblocked = await c.json("PUT", base, { blocked_providers: [] });
  assert.deepEqual(unblocked.body.policy, { guardrail: "block" });
  assert.deepEqual(unblocked.body.warnings, []);
  // strict_only alone leaves the strict classifier its route: no warning; "any" drops it.
  const strict = await c.json("PUT", base, { sovereignty: "strict_only" });
  assert.deepEqual(strict.body.warnings, []);
  const relaxed = await c.json("PUT", base, { sovereignty: "any", guardrail: "off" });
  assert.deepEqual(relaxed.body.policy, {});

  for (
    const bad of [
      { blocked_providers: ["no-such"] },
      { allowed_models: ["no/such"] },
      { sovereignty: "eu" },
      { guardrail_remote: { model: GUARD } },
    ]
  ) {
    const refused = await c.json("PUT", base, bad);
    assert.equal(refused.status, 400, JSON.stringify(bad));
  }
  // An allow-list naming no model: refused for a key and for the organization (as the CLI does;
  // the rules are src/policy/policy_edit.ts), nothing stored.
  const before = await d.h.store.getKeyPolicy(keyId);
  const orgBefore = await d.h.store.getOrgPolicy(org);
  for (const path of [base, `/api/orgs/${org}/policy`]) {
    const empty = await c.json("PUT", path, { allowed_models: [] });
    assert.equal(empty.status, 400, path);
    assert.equal(empty.body.error.code, "invalid_request");
    assert.equal(empty.body.error.param, "allowed_models");
    assert.match(empty.body.error.message, /empty list would allow no model at all/);
  }
  assert.deepEqual(await d.h.store.getKeyPolicy(keyId), before, "nothing stored for the key");
  assert.deepEqual(await d.h.store.getOrgPolicy(org), orgBefore, "nor for the organization");
  const viewer = await ApiClient.signedIn(d.url, "viewer@example.eu");
  assert.equal((await viewer.get(base)).status, 200, "viewers read");
  assert.equal((await viewer.json("PUT", base, { zdr_only: true })).status, 403);
  const missing = await c.json("PUT", `/api/orgs/${org}/keys/key_nope/policy`, { zdr_only: true });
  assert.equal(missing.status, 404);

  // Audited: the policy trail (actor, before/after) and the control-plane log.
  const trail = (await d.h.store.listPolicyAudit(org, 20)).filter((e) => e.key_id === keyId);
  assert.equal(trail.length, 5);
  assert.ok(trail.every((e) => e.actor === "dashboard:owner@example.eu"));
  assert.deepEqual(trail[trail.length - 1]!.after, { guardrail: "block" });
  const log = await c.get(`/api/orgs/${org}/audit`);
  const entries = (log.body.data as Array<{ action: string; target: string }>)
    .filter((e) => e.action === "policy.changed" && e.target === keyId);
  assert.equal(entries.length, 5);

  // The pages: the form saves with the same rules and shows the warning; the policies page lists
  // the key with it.
  const form = (fields: Record<string, string>) =>
    fetch(`${d.url}/orgs/${org}/policies/keys/${keyId}`, {
      method: "POST",
      headers: {
        cookie: c.cookie,
        origin: d.url,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams(fields).toString(),
    });
  const fields = {
    sovereignty: "any",
    zdr_only: "false",
    guardrail: "block",
    blocked_providers: "sim-b",
    allowed_models: "",
  };
  const warnedPage = await form(fields);
  assert.equal(warnedPage.status, 200);
  const warnedHtml = await warnedPage.text();
  assert.ok(warnedHtml.includes("Key policy saved, with the warning above"));
  assert.match(
    warnedHtml,
    /id="key-policy-warning">[^<]*no route \(blocked_providers \(key policy\) lists/,
  );
  assert.deepEqual(await d.h.store.getKeyPolicy(keyId), {
    guardrail: "block",
    blocked_providers: ["sim-b"],
  });
  const orgPage = await (await c.request("GET", `/orgs/${org}/policies`)).text();
  assert.match(
    orgPage,
    new RegExp(`data-key="${keyId}"[\\s\\S]*?class="key-warning">[^<]*no route`),
  );
  const cleanPage = await (await form({ ...fields, blocked_providers: "" })).text();
  assert.ok(cleanPage.includes("Key policy saved; gateways apply it"));
  assert.ok(!cleanPage.includes('id="key-policy-warning"'));
  const viewerPage = await (await viewer.request("GET", `/orgs/${org}/policies/keys/${keyId}`))
    .text();
  assert.ok(!viewerPage.includes('id="key-policy-form"'), "viewers see no form");
}

Deno.test("dashboard key policy — JSON API and pages, warning for a classifier left with no route (KV)", async () => {
  await roundTrip();
});

Deno.test("dashboard key policy — JSON API and pages, warning for a classifier left with no route (PostgreSQL)", async () => {
  await using cluster = await startPostgres();
  await roundTrip({ SOVRA_DATABASE_URL: cluster.url });
});

/** The real store, with the calls of `method` counted (their first argument each). */
function counting(method: "getKeyPolicy" | "listApiKeys" | "getOrgPolicy", calls: string[]) {
  return (store: Store): Store =>
    new Proxy(store, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (typeof value !== "function") return value;
        if (name !== method) return value.bind(target);
        return (...args: unknown[]) => {
          calls.push(String(args[0]));
          return value.apply(target, args);
        };
      },
    });
}

Deno.test("dashboard policies page — each key's policy is read once per render (table and warnings from one pass)", async () => {
  const reads: string[] = [];
  await using d = await startDashboardHarness({
    models: [moderationModel(GUARD, "guard+jailbreak-97", "sim-b")],
    wrapStore: counting("getKeyPolicy", reads),
  });
  const { org, keyId } = d.h;
  // The remote layer on: the organization's warnings need every key's policy too.
  await d.h.store.putOrgPolicy(org, {
    ...DEFAULT_ORG_POLICY,
    guardrail_remote: { model: GUARD, timeout_ms: 1500, on_error: "open" },
  }, "test");
  const keys = [keyId];
  for (let i = 0; i < 3; i++) {
    keys.push(String((await d.h.admin(["key", "create"], { org })).id));
  }
  await d.h.store.putKeyPolicy(org, keys[1]!, { blocked_providers: ["sim-b"] }, "test");
  await d.user("owner@example.eu", org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");

  reads.length = 0;
  const page = await c.request("GET", `/orgs/${org}/policies`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.deepEqual(reads.toSorted(), keys.toSorted(), "one read of each key's policy");
  assert.match(
    html,
    new RegExp(`data-key="${keys[1]}"[\\s\\S]*?class="key-warning">[^<]*no route`),
    "the warning is still shown",
  );

  // The JSON API's view reads them once too (its warnings only).
  reads.length = 0;
  const view = await c.get(`/api/orgs/${org}/policy`);
  assert.equal(view.body.warnings.length, 1);
  assert.deepEqual(reads.toSorted(), keys.toSorted());
});
