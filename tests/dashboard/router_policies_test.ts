/**
 * The dashboard's "Routing policies" page: the model table, a preview of the traffic split
 * and cost before saving, save (validated like the CLI), use from the request API, the
 * served-model split and spend, roles, delete.
 */
import assert from "node:assert/strict";
import { startDashboard } from "../../src/dashboard/server.ts";
import { silentLogger } from "../../src/log.ts";
import { hashPassword } from "../../src/dashboard/passwords.ts";
import { ApiClient, PASSWORD } from "./support.ts";
import { LARGE, SMALL, startRouterHarness } from "../smart_router/router_support.ts";
import { chatModel } from "../helpers/harness.ts";

Deno.test("dashboard — routing policies: preview, save, use, split and spend, roles, delete", async () => {
  const h = await startRouterHarness();
  const config = { ...h.gateway.deps.config, dashboardPort: 0, passwordScryptLogN: 10 };
  const dash = startDashboard({
    config,
    store: h.store,
    log: silentLogger,
    apiUrl: h.url,
    catalog: () => h.gateway.deps.catalog.current,
  });
  try {
    for (const [email, role] of [["owner@example.eu", "owner"], ["viewer@example.eu", "viewer"]]) {
      const id = `usr_${role}`;
      await dash.deps.accounts.createUser({
        id,
        email: email!,
        password_hash: await hashPassword(PASSWORD, 10),
        operator: false,
        created: new Date().toISOString(),
        password_changed_at: null,
      });
      await dash.deps.accounts.addMembership({
        org: h.org,
        user: id,
        role: role as "owner" | "viewer",
        created: new Date().toISOString(),
      });
    }
    const owner = await ApiClient.signedIn(dash.url, "owner@example.eu");
    const page = `/orgs/${h.org}/routing`;
    const form = (client: ApiClient, path: string, fields: [string, string][]) =>
      fetch(`${dash.url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: dash.url,
          cookie: client.cookie,
        },
        body: new URLSearchParams(fields).toString(),
      });

    const empty = await (await owner.request("GET", page)).text();
    assert.match(empty, /No routing policies yet/);
    for (const m of [SMALL.id, LARGE.id]) assert.ok(empty.includes(`value="${m}"`), m);

    const draft: [string, string][] = [
      ["id", "support"],
      ["pool", SMALL.id],
      ["pool", LARGE.id],
      ["strategy", "auto"],
      ["threshold", "6"],
    ];
    const preview = await form(owner, page, [...draft, ["action", "preview"]]);
    assert.equal(preview.status, 200);
    const previewHtml = await preview.text();
    assert.match(previewHtml, /id="prediction"/);
    assert.match(previewHtml, /Cost per 1,000 requests: €\s[\d.,]+/);
    assert.equal(await h.store.routingPolicies!.getRoutingPolicy(h.org, "support"), undefined);
    // The preview follows the dial: T = 1 sends the whole sample to the cheap model.
    const cheap = await (await form(owner, page, [
      ...draft.filter(([k]) => k !== "threshold"),
      ["threshold", "1"],
      ["action", "preview"],
    ])).text();
    assert.match(
      cheap,
      new RegExp(`data-model="${SMALL.id}"><td>${SMALL.id}</td><td class="num">100.0 %`),
    );

    const saved = await form(owner, page, [...draft, ["action", "save"]]);
    assert.equal(saved.status, 200);
    assert.match(await saved.text(), /router\/support/);
    const stored = await h.store.routingPolicies!.getRoutingPolicy(h.org, "support");
    assert.deepEqual(stored?.pool, [SMALL.id, LARGE.id]);
    assert.equal(stored?.threshold, 6);

    const res = await h.post("/v1/chat/completions", {
      model: "router/support",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(res.status, 200);
    const routed = res.headers.get("x-sovra-routed-model")!;
    await res.body?.cancel();
    await h.flushed();
    const listed = await (await owner.request("GET", page)).text();
    assert.ok(listed.includes(`${routed}: 100.0 %`), "the served-model split");

    const bad = await form(owner, page, [["id", "Bad Id"], ["pool", SMALL.id], ["action", "save"]]);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /slug/);
    const none = await form(owner, page, [["id", "x"], ["action", "save"]]);
    assert.equal(none.status, 400);

    const viewer = await ApiClient.signedIn(dash.url, "viewer@example.eu");
    const refused = await form(viewer, page, [...draft, ["action", "save"]]);
    assert.equal(refused.status, 403);
    assert.ok(!(await (await viewer.request("GET", page)).text()).includes("Build a policy"));

    const deleted = await owner.request("POST", `${page}/support/delete`);
    assert.equal(deleted.status, 303);
    assert.equal(await h.store.routingPolicies!.getRoutingPolicy(h.org, "support"), undefined);
  } finally {
    await dash.close();
    await h.close();
  }
});

Deno.test("dashboard API — routing policies: list with models, preview, save, delete", async () => {
  const h = await startRouterHarness();
  const config = { ...h.gateway.deps.config, dashboardPort: 0, passwordScryptLogN: 10 };
  const dash = startDashboard({
    config,
    store: h.store,
    log: silentLogger,
    apiUrl: h.url,
    catalog: () => h.gateway.deps.catalog.current,
  });
  try {
    await dash.deps.accounts.createUser({
      id: "usr_admin",
      email: "admin@example.eu",
      password_hash: await hashPassword(PASSWORD, 10),
      operator: false,
      created: new Date().toISOString(),
      password_changed_at: null,
    });
    await dash.deps.accounts.addMembership({
      org: h.org,
      user: "usr_admin",
      role: "admin",
      created: new Date().toISOString(),
    });
    const c = await ApiClient.signedIn(dash.url, "admin@example.eu");
    const base = `/api/orgs/${h.org}/routing-policies`;
    const draft = { id: "api", pool: [SMALL.id, LARGE.id], strategy: "auto", threshold: 10 };
    const preview = await c.post(`${base}/preview`, draft);
    assert.equal(preview.status, 200);
    assert.equal(preview.body.share[LARGE.id], 1);
    assert.ok(preview.body.costPer1000MicroEur > 0);
    const saved = await c.post(base, draft);
    assert.equal(saved.status, 201);
    assert.equal(saved.body.threshold, 10);
    const bad = await c.post(base, { ...draft, pool: ["nope/none"] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /'nope\/none' is not in the catalog/);
    const listed = await c.get(base);
    assert.deepEqual(listed.body.data.map((r: { policy: { id: string } }) => r.policy.id), ["api"]);
    assert.ok(listed.body.models.some((m: { id: string }) => m.id === SMALL.id));
    assert.equal((await c.json("DELETE", `${base}/api`)).status, 200);
    assert.equal((await c.json("DELETE", `${base}/api`)).status, 404);
  } finally {
    await dash.close();
    await h.close();
  }
});

Deno.test("dashboard — the routing page's model table shows each model's live latency and error rate from the request metadata", async () => {
  const FAILING = chatModel("sim/f500", "fail-500", { quality: { overall: 0.5 } });
  const h = await startRouterHarness({ models: [FAILING] });
  const config = { ...h.gateway.deps.config, dashboardPort: 0, passwordScryptLogN: 10 };
  const dash = startDashboard({
    config,
    store: h.store,
    log: silentLogger,
    apiUrl: h.url,
    catalog: () => h.gateway.deps.catalog.current,
  });
  try {
    await dash.deps.accounts.createUser({
      id: "usr_admin",
      email: "admin@example.eu",
      password_hash: await hashPassword(PASSWORD, 10),
      operator: false,
      created: new Date().toISOString(),
      password_changed_at: null,
    });
    await dash.deps.accounts.addMembership({
      org: h.org,
      user: "usr_admin",
      role: "admin",
      created: new Date().toISOString(),
    });
    const ask = async (model: string) => {
      const res = await h.post("/v1/chat/completions", {
        model,
        messages: [{ role: "user", content: "hi" }],
      });
      await res.body?.cancel();
      return res.status;
    };
    for (let i = 0; i < 3; i++) assert.equal(await ask(SMALL.id), 200);
    for (let i = 0; i < 2; i++) assert.ok(await ask(FAILING.id) >= 500);
    await h.flushed();
    // The expected figures, from the stored metadata itself (no timing is asserted).
    const rows = await dash.deps.control.requestsBetween(
      h.org,
      new Date(Date.now() - 3_600_000),
      new Date(Date.now() + 60_000),
      100,
    );
    const small = rows.filter((r) => r.requested_model === SMALL.id).map((r) => r.latency_ms)
      .sort((a, b) => a - b);
    assert.equal(small.length, 3);

    const admin = await ApiClient.signedIn(dash.url, "admin@example.eu");
    const html = await (await admin.request("GET", `/orgs/${h.org}/routing`)).text();
    const row = (id: string) => {
      const m = html.match(new RegExp(`<tr data-model="${id}">(.*?)</tr>`, "s"));
      assert.ok(m, `a row for ${id}`);
      const cell = (cls: string) => m[1]!.match(new RegExp(`class="num ${cls}">([^<]*)<`))![1];
      return { latency: cell("live-latency"), errors: cell("live-errors") };
    };
    assert.deepEqual(row(SMALL.id), {
      latency: `${small[1]} ms (p95 ${small[2]} ms)`,
      errors: "0.0 % of 3",
    });
    assert.deepEqual(row(FAILING.id), { latency: "—", errors: "100.0 % of 2" });
    assert.deepEqual(row(LARGE.id), { latency: "—", errors: "—" });

    const api = await admin.get(`/api/orgs/${h.org}/routing-policies`);
    assert.equal(api.status, 200);
    assert.deepEqual(api.body.live[SMALL.id], {
      requests: 3,
      errors: 0,
      errorRate: 0,
      medianLatencyMs: small[1],
      p95LatencyMs: small[2],
    });
    assert.equal(api.body.live[FAILING.id].errorRate, 1);
    assert.equal(api.body.live[LARGE.id], undefined);
  } finally {
    await dash.close();
    await h.close();
  }
});
