/**
 * The guardrail's remote layer on the dashboard's "Organization policies" page and JSON API, on
 * Deno KV and on PostgreSQL: off by default; an owner switches it on from the form and changes it
 * through the API (only the fields given); bad values are refused with 400; every change is in
 * the policy's trail and the control-plane audit log; the dry run says a borderline text would be
 * put to the classifier and sends it nowhere; the request API then asks the classifier.
 */
import assert from "node:assert/strict";
import { ApiClient, MODEL, startDashboardHarness } from "./support.ts";
import { borderlineText } from "../policy/policy_support.ts";
import { startPostgres } from "../helpers/postgres.ts";
import type { TestModel } from "../helpers/harness.ts";

const GUARD = "acme/guard";
const GUARD_MODEL: TestModel = {
  id: GUARD,
  kind: "moderation",
  sovereignty: "strict",
  moderation: { injection_categories: ["jailbreaking"] },
  routes: [{ provider: "sim-a", upstream_model: "guard+jailbreak-97" }],
};
/** The local scan flags it (borderline). */
const { text: BORDERLINE } = borderlineText();

async function roundTrip(env: Record<string, string> = {}) {
  await using d = await startDashboardHarness({ models: [GUARD_MODEL], env });
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const base = `/api/orgs/${d.h.org}/policy`;

  const view = await c.get(base);
  assert.equal(view.body.policy.guardrail_remote, null, "off by default");
  assert.deepEqual(view.body.moderationModels, [{ id: GUARD, allowed: true, reasons: [] }]);
  assert.ok(!view.body.models.some((m: { id: string }) => m.id === GUARD), "not a client model");
  const page = await (await c.request("GET", `/orgs/${d.h.org}/policies`)).text();
  assert.match(page, /id="guardrail-remote">\s*off/);
  assert.ok(page.includes("Remote guardrail layer") && page.includes(`value="${GUARD}"`));

  const saved = await fetch(`${d.url}/orgs/${d.h.org}/policies`, {
    method: "POST",
    headers: {
      cookie: c.cookie,
      origin: d.url,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      sovereignty: "any",
      zdr_only: "false",
      guardrail: "block",
      blocked_providers: "",
      allowed_models: "",
      guardrail_remote_model: GUARD,
      guardrail_remote_timeout_ms: "400",
      guardrail_remote_on_error: "closed",
    }).toString(),
  });
  assert.equal(saved.status, 200);
  const savedPage = await saved.text();
  assert.ok(savedPage.includes("Policy saved"));
  assert.match(savedPage, new RegExp(`id="guardrail-remote">\\s*${GUARD}`));
  assert.deepEqual(
    (await d.h.store.getOrgPolicy(d.h.org))?.guardrail_remote,
    { model: GUARD, timeout_ms: 400, on_error: "closed" },
  );

  const changed = await c.json("PUT", base, { guardrail_remote: { on_error: "open" } });
  assert.equal(changed.status, 200);
  assert.deepEqual(changed.body.policy.guardrail_remote, {
    model: GUARD,
    timeout_ms: 400,
    on_error: "open",
  });
  for (
    const bad of [
      { model: MODEL },
      { model: "no/such" },
      { timeout_ms: 10 },
      { on_error: "sometimes" },
      { model: null, timeout_ms: 300 },
    ]
  ) {
    const refused = await c.json("PUT", base, { guardrail_remote: bad });
    assert.equal(refused.status, 400, JSON.stringify(bad));
  }
  const blocksItsRoute = await c.json("PUT", base, {
    blocked_providers: ["sim-a"],
    guardrail_remote: { model: GUARD },
  });
  assert.equal(blocksItsRoute.status, 400, "a classifier the policy cannot reach is refused");
  // The same without naming the remote layer (the JSON API and CLI as the page's form).
  const blocksAlone = await c.json("PUT", base, { blocked_providers: ["sim-a"] });
  assert.equal(blocksAlone.status, 400, "a data rule that leaves the classifier no route");
  const strictAlone = await c.json("PUT", base, { sovereignty: "strict_only", zdr_only: true });
  assert.equal(strictAlone.status, 400, "a data rule that leaves the classifier no route");
  assert.deepEqual(
    (await d.h.store.getOrgPolicy(d.h.org))?.guardrail_remote,
    { model: GUARD, timeout_ms: 400, on_error: "open" },
    "a refused change stores nothing",
  );

  // The dry run names the classifier for a borderline text and sends nothing anywhere.
  const dry = await c.post(`${base}/dry-run`, { model: MODEL, text: BORDERLINE });
  assert.equal(dry.body.guardrail.verdict, "flag");
  assert.deepEqual(dry.body.guardrail.remote, { model: GUARD, on_error: "open" });
  const plain = await c.post(`${base}/dry-run`, {
    model: MODEL,
    text: "What is the capital of France?",
  });
  assert.equal(plain.body.guardrail.remote, null);
  const dryPage = await fetch(`${d.url}/orgs/${d.h.org}/policies/dry-run`, {
    method: "POST",
    headers: {
      cookie: c.cookie,
      origin: d.url,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ model: MODEL, text: BORDERLINE, channel: "user" }).toString(),
  });
  assert.match(
    await dryPage.text(),
    /id="dry-run-remote"[^<]*borderline: a real request would also ask/,
  );
  assert.equal(d.h.sim.requests.length, 0, "the dry run sent the text nowhere");

  // The request API agrees (a fresh key: nothing cached): the classifier blocks it.
  const key = await c.post(`/api/orgs/${d.h.org}/keys`, { name: "k" });
  const res = await fetch(`${d.h.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key.body.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: BORDERLINE }] }),
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("x-sovra-guardrail-remote"), "block");
  await res.body?.cancel();
  assert.deepEqual(d.h.sim.requests.map((r) => r.path), ["/v1/moderations"]);

  const off = await c.json("PUT", base, { guardrail_remote: { model: null } });
  assert.equal(off.body.policy.guardrail_remote, null);

  const trail = await d.h.store.listPolicyAudit(d.h.org, 10);
  assert.deepEqual(
    trail.slice(0, 3).map((e) => (e.after as { guardrail_remote?: unknown }).guardrail_remote),
    [null, { model: GUARD, timeout_ms: 400, on_error: "open" }, {
      model: GUARD,
      timeout_ms: 400,
      on_error: "closed",
    }],
  );
  assert.ok(trail.slice(0, 3).every((e) => e.actor === "dashboard:owner@example.eu"));
  const audit = await c.get(`/api/orgs/${d.h.org}/audit`);
  const remotes = audit.body.data
    .filter((e: { action: string }) => e.action === "policy.changed")
    .map((e: { detail: { guardrail_remote: unknown } }) => e.detail.guardrail_remote);
  assert.deepEqual(remotes.slice(0, 3), [null, `${GUARD} 400 ms open`, `${GUARD} 400 ms closed`]);
}

Deno.test("policies — the remote guardrail layer: page, API, audit, dry run (Deno KV)", async () => {
  await roundTrip();
});

Deno.test("policies — the remote guardrail layer: page, API, audit, dry run (PostgreSQL)", async () => {
  await using cluster = await startPostgres();
  await using dir = await Deno.makeTempDir({ prefix: "sovra-pg-remote-" }).then((path) => ({
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  }));
  await roundTrip({
    SOVRA_DATABASE_URL: await cluster.database(),
    SOVRA_SPILL_PATH: `${dir.path}/spill.jsonl`,
  });
});
