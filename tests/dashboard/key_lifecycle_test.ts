/**
 * A key's lifetime from the dashboard (docs/costs.md "Key expiry and rotation"): an expiry set
 * at creation and changed on the key's page, rotation to a successor shown once while the old
 * key keeps working for the chosen grace period (0: it stops at once, within the key cache's
 * delay), both audited; viewers see but cannot change; another organization's key is 404.
 */
import assert from "node:assert/strict";
import { ApiClient, MODEL, startDashboardHarness } from "./support.ts";
import { until } from "../helpers/until.ts";

async function chatStatus(url: string, key: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
  });
  const body = await res.json();
  return { status: res.status, ...(body.error ? { code: body.error.code } : {}) };
}

Deno.test("key settings — expiry on create and on the key's page; rotation shows the successor once and ends the old key after its grace", async () => {
  await using d = await startDashboardHarness({ keyCacheSeconds: 1 });
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("viewer@example.eu", d.h.org, "viewer");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const base = `/api/orgs/${d.h.org}/keys`;

  const created = await c.post(base, { name: "ci", expires_at: "30d" });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const in30 = Date.parse(created.body.expires_at) - Date.now();
  assert.ok(Math.abs(in30 - 30 * 86_400_000) < 60_000, created.body.expires_at);
  const id: string = created.body.id;
  const listed = (await c.get(base)).body.data.find((k: { id: string }) => k.id === id);
  assert.equal(listed.expires_at, created.body.expires_at);
  assert.equal(listed.state, "active");

  const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 400 * 86_400_000).toISOString();
  const changed = await c.json("PATCH", `${base}/${id}`, { expires_at: later });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal(changed.body.expires_at, later);
  const past = await c.json("PATCH", `${base}/${id}`, { expires_at: "2020-01-01T00:00:00Z" });
  assert.equal(past.status, 400);
  assert.equal(past.body.error.param, "expires_at");

  // Rotation with no grace: the successor works at once, the old key stops (401 expired).
  const rotated = await c.post(`${base}/${id}/rotate`, { grace_seconds: 0 });
  assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
  const successor: string = rotated.body.key;
  assert.match(successor, /^sk-ex-[0-9A-Za-z]{43}$/);
  assert.equal(rotated.body.name, "ci");
  assert.ok(rotated.body.snippets.curl.includes(successor));
  assert.equal(rotated.body.previous.rotated_to, rotated.body.id);
  assert.equal((await chatStatus(d.h.url, successor)).status, 200);
  let last = { status: 0 } as { status: number; code?: string };
  await until("the old key refused", async () => {
    last = await chatStatus(d.h.url, created.body.key);
    return last.status === 401;
  });
  assert.equal(last.code, "api_key_expired");
  const page = await (await c.request("GET", `/orgs/${d.h.org}/keys/${id}`)).text();
  assert.match(page, /<span class="pill expired">expired<\/span>/);
  assert.ok(page.includes(`href="/orgs/${d.h.org}/keys/${rotated.body.id}"`));
  assert.ok(!page.includes(successor.slice(10)), "the successor is shown once, not here");

  // Rotation through the page's form: the successor in the answer, the old key for a day.
  const other = await c.post(base, { name: "web" });
  const form = await c.request(
    "POST",
    `/orgs/${d.h.org}/keys/${other.body.id}/rotate`,
    new URLSearchParams({ grace_seconds: "86400" }).toString(),
    { "content-type": "application/x-www-form-urlencoded" },
  );
  assert.equal(form.status, 200);
  assert.equal(form.headers.get("cache-control"), "no-store");
  const html = await form.text();
  const shown = /<code class="key" id="new-key">(sk-ex-[0-9A-Za-z]{43})<\/code>/.exec(html)?.[1];
  assert.ok(shown, "the successor's key on the page");
  assert.equal((await chatStatus(d.h.url, shown)).status, 200);
  assert.equal((await chatStatus(d.h.url, other.body.key)).status, 200, "grace: still works");
  const old = (await c.get(`${base}/${other.body.id}`)).body;
  assert.ok(Math.abs(Date.parse(old.expires_at) - Date.now() - 86_400_000) < 60_000);

  const audit = (await c.get(`/api/orgs/${d.h.org}/audit`)).body.data as Array<
    { action: string; target: string; actor: string; detail: Record<string, unknown> }
  >;
  const rotations = audit.filter((e) => e.action === "key.rotated");
  assert.deepEqual(rotations.map((e) => e.target).sort(), [id, other.body.id].sort());
  assert.ok(rotations.every((e) => e.actor === "owner@example.eu"));
  assert.ok(audit.some((e) => e.action === "key.expiry_set" && e.target === id));
  assert.ok(!JSON.stringify(audit).includes(successor.slice(10)), "never a key in the log");

  // Viewers see the page but change nothing; another organization's key is not found.
  const viewer = await ApiClient.signedIn(d.url, "viewer@example.eu");
  assert.equal((await viewer.get(`${base}/${rotated.body.id}`)).status, 200);
  assert.equal((await viewer.post(`${base}/${rotated.body.id}/rotate`, {})).status, 403);
  assert.equal(
    (await viewer.json("PATCH", `${base}/${rotated.body.id}`, { expires_at: null })).status,
    403,
  );
  assert.equal((await c.get(`/api/orgs/${d.otherOrg}/keys/${id}`)).status, 404);
});
