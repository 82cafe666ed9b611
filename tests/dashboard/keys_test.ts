/** API keys from the dashboard: shown once, usable at once, roles, RPM ceiling, revocation. */
import assert from "node:assert/strict";
import { ApiClient, MODEL, startDashboardHarness } from "./support.ts";

function chat(url: string, key: string) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  });
}

Deno.test("keys — created key is shown once, works on the request API, and is listed without the secret", async () => {
  await using d = await startDashboardHarness();
  await d.user("admin@example.eu", d.h.org, "admin");
  const c = await ApiClient.signedIn(d.url, "admin@example.eu");
  const created = await c.post(`/api/orgs/${d.h.org}/keys`, { name: "production", rpm: 120 });
  assert.equal(created.status, 201);
  const key: string = created.body.key;
  assert.match(key, /^sk-ex-[0-9A-Za-z]{43}$/);
  assert.equal(created.body.rpm, 120);
  assert.equal(created.body.prefix, key.slice(0, 10));
  assert.ok(created.body.snippets.curl.includes(key));
  assert.ok(created.body.snippets.curl.includes(`${d.h.url}/v1/chat/completions`));
  assert.ok(created.body.snippets.python.includes(MODEL));

  const res = await chat(d.h.url, key);
  assert.equal(res.status, 200);
  await res.body?.cancel();

  const list = await c.get(`/api/orgs/${d.h.org}/keys`);
  const listed = list.body.data.find((k: { id: string }) => k.id === created.body.id);
  assert.equal(listed.name, "production");
  assert.equal(listed.state, "active");
  assert.ok(!JSON.stringify(list.body).includes(key.slice(10)), "never the key again");
  const page = await c.request("GET", `/orgs/${d.h.org}/keys`);
  const html = await page.text();
  assert.ok(html.includes("production") && !html.includes(key.slice(10)));

  await d.h.flushed();
  const relisted = await c.get(`/api/orgs/${d.h.org}/keys`);
  const used = relisted.body.data.find((k: { id: string }) => k.id === created.body.id);
  assert.equal(used.last_used_day, new Date().toISOString().slice(0, 10));

  const audit = await c.get(`/api/orgs/${d.h.org}/audit`);
  const entry = audit.body.data.find((e: { action: string }) => e.action === "key.created");
  assert.equal(entry.actor, "admin@example.eu");
  assert.equal(entry.target, created.body.id);
  assert.ok(!JSON.stringify(audit.body).includes(key.slice(10)));
});

Deno.test("keys — revoke answers 401 on the request API within the cache time", async () => {
  await using d = await startDashboardHarness({ keyCacheSeconds: 1 });
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const created = await c.post(`/api/orgs/${d.h.org}/keys`, { name: "short-lived" });
  const key: string = created.body.key;
  const first = await chat(d.h.url, key);
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const revoked = await c.post(`/api/orgs/${d.h.org}/keys/${created.body.id}/revoke`);
  assert.equal(revoked.status, 200);
  assert.equal(revoked.body.state, "revoked");
  let status = 0;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const res = await chat(d.h.url, key);
    status = res.status;
    await res.body?.cancel();
    if (status === 401) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(status, 401);
  const audit = await c.get(`/api/orgs/${d.h.org}/audit`);
  assert.ok(audit.body.data.some((e: { action: string }) => e.action === "key.revoked"));
});

Deno.test("keys — viewers list but cannot create or revoke; RPM is capped by the org's ceiling", async () => {
  await using d = await startDashboardHarness();
  await d.user("viewer@example.eu", d.h.org, "viewer");
  await d.user("op@example.eu", undefined, undefined, true);
  const viewer = await ApiClient.signedIn(d.url, "viewer@example.eu");
  assert.equal((await viewer.get(`/api/orgs/${d.h.org}/keys`)).status, 200);
  const create = await viewer.post(`/api/orgs/${d.h.org}/keys`, { name: "x" });
  assert.equal(create.status, 403);
  assert.equal(create.body.error.code, "forbidden");
  const revoke = await viewer.post(`/api/orgs/${d.h.org}/keys/${d.h.keyId}/revoke`);
  assert.equal(revoke.status, 403);

  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  const ceiling = await op.json("PATCH", `/api/orgs/${d.h.org}/settings`, { rpm_ceiling: 100 });
  assert.equal(ceiling.status, 200, JSON.stringify(ceiling.body));
  assert.equal((await op.post(`/api/orgs/${d.h.org}/keys`, { name: "x" })).status, 403);
  await d.user("admin@example.eu", d.h.org, "admin");
  const admin = await ApiClient.signedIn(d.url, "admin@example.eu");
  const over = await admin.post(`/api/orgs/${d.h.org}/keys`, { name: "big", rpm: 101 });
  assert.equal(over.status, 400);
  assert.equal(over.body.error.param, "rpm");
  const capped = await admin.post(`/api/orgs/${d.h.org}/keys`, { name: "default" });
  assert.equal(capped.body.rpm, 100, "the default RPM respects the ceiling");
  const admins = await admin.json("PATCH", `/api/orgs/${d.h.org}/settings`, {
    rpm_ceiling: 5000,
  });
  assert.equal(admins.status, 403, "only operators set the ceiling");
});

Deno.test("keys — a name with control characters is refused naming the field; names are trimmed and at most 64 characters", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const path = `/api/orgs/${d.h.org}/keys`;
  for (
    const name of [
      "ci\u0000key",
      "line\nbreak",
      "tab\there",
      "bell\u0007",
      "del\u007f",
      "\u202eevil",
    ]
  ) {
    const res = await c.post(path, { name });
    assert.equal(res.status, 400, JSON.stringify(name));
    assert.equal(res.body.error.code, "invalid_request");
    assert.equal(res.body.error.param, "name");
    assert.match(res.body.error.message, /name/i);
    assert.match(res.body.error.message, /control character/);
  }
  const long = await c.post(path, { name: "x".repeat(65) });
  assert.equal(long.status, 400);
  assert.equal(long.body.error.param, "name");
  assert.match(long.body.error.message, /64/);
  const blank = await c.post(path, { name: "   " });
  assert.equal(blank.status, 400);
  assert.equal(blank.body.error.param, "name");
  const ok = await c.post(path, { name: "  👩‍💻 prod-eu  " });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.equal(ok.body.name, "👩‍💻 prod-eu");
  const listed = (await c.get(path)).body.data.map((k: { name: string }) => k.name);
  assert.ok(listed.includes("👩‍💻 prod-eu"));
  assert.ok(!listed.some((n: string) => /\p{Cc}/u.test(n ?? "")), "nothing refused was stored");
  const form = await fetch(`${d.url}/orgs/${d.h.org}/keys`, {
    method: "POST",
    headers: {
      cookie: c.cookie,
      origin: d.url,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "name=a%00b",
  });
  assert.equal(form.status, 400);
  assert.match(await form.text(), /control character/);
});
