/** Dashboard sign-in, sessions, set-password links, CSRF and the secure headers. */
import assert from "node:assert/strict";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";
import { createUser, issueSetPasswordLink } from "../../src/dashboard/areas/accounts.ts";

Deno.test("login — sets a __Host- session cookie (HttpOnly, Secure, SameSite=Strict) and /api/session answers", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = new ApiClient(d.url);
  const res = await c.request("POST", "/api/login", {
    email: "Owner@Example.eu",
    password: PASSWORD,
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.user.email, "owner@example.eu");
  assert.equal("password_hash" in body.user, false);
  const cookie = res.headers.get("set-cookie") ?? "";
  assert.match(cookie, /^__Host-sovra_session=[A-Za-z0-9_-]{43};/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /Secure/);
  assert.match(cookie, /SameSite=Strict/);
  assert.match(cookie, /Path=\//);
  const session = await c.get("/api/session");
  assert.equal(session.status, 200);
  assert.equal(session.body.memberships[0].org, d.h.org);
  assert.equal(session.body.memberships[0].role, "owner");
  const orgs = await c.get("/api/orgs");
  assert.deepEqual(orgs.body.data, [{ id: d.h.org, name: "Test org", role: "owner" }]);
  // The token is stored only hashed: no KV value holds it.
  const token = c.cookie.split("=")[1]!;
  for await (const e of d.h.store.kv.list({ prefix: ["session"] })) {
    assert.ok(!JSON.stringify(e).includes(token));
  }
});

Deno.test("login — unknown e-mail and wrong password get the same answer", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = new ApiClient(d.url);
  const wrong = await c.post("/api/login", { email: "owner@example.eu", password: "nope-nope" });
  const unknown = await c.post("/api/login", { email: "ghost@example.eu", password: "nope" });
  assert.equal(wrong.status, 401);
  assert.equal(unknown.status, 401);
  assert.deepEqual(wrong.body, unknown.body);
  assert.equal(wrong.body.error.code, "invalid_credentials");
  assert.equal(c.cookie, "");
  assert.equal((await c.get("/api/session")).status, 401);
  // Failed sign-ins reach the audit log, without the password tried.
  const audit = await d.dash.deps.control.listAudit(d.h.org, 10);
  assert.equal(audit[0]?.action, "login.failed");
  assert.ok(!JSON.stringify(audit).includes("nope-nope"));
});

/** Moves the dashboard's clock to 1 s after the start of a 15-minute window (and a minute). */
function atWindowStart(d: { clock: { offset: number } }) {
  const window = 15 * 60_000;
  const now = Date.now() + d.clock.offset;
  d.clock.offset += Math.ceil(now / window) * window - now + 1000;
}

/** A sign-in as sent through a proxy that recorded `from` in X-Forwarded-For. */
function loginFrom(d: { url: string }, from: string, email: string, password: string) {
  return new ApiClient(d.url).request("POST", "/api/login", { email, password }, {
    "x-forwarded-for": from,
  }).then(async (r) => ({ status: r.status, body: await r.json(), headers: r.headers }));
}

Deno.test("login — of 14 parallel wrong passwords (limit 10) exactly 10 are tried: each attempt is reserved before hashing", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  atWindowStart(d);
  const c = new ApiClient(d.url);
  const answers = await Promise.all(
    Array.from(
      { length: 14 },
      (_, i) => c.post("/api/login", { email: "owner@example.eu", password: `bad-${i}` }),
    ),
  );
  const statuses = answers.map((a) => a.status).sort();
  assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(4).fill(429)]);
  const audit = await d.dash.deps.control.listAudit(d.h.org, 100);
  assert.equal(audit.filter((e) => e.action === "login.failed").length, 10, "10 tried");
});

Deno.test("login — 10 failures per account and client address throttle that pair, even with the right password; the owner elsewhere still signs in", async () => {
  await using d = await startDashboardHarness({ env: { SOVRA_TRUSTED_PROXIES: "127.0.0.1" } });
  await d.user("owner@example.eu", d.h.org, "owner");
  atWindowStart(d);
  for (let i = 0; i < 10; i++) {
    const r = await loginFrom(d, "203.0.113.9", "owner@example.eu", `bad-${i}`);
    assert.equal(r.status, 401);
  }
  const blocked = await loginFrom(d, "203.0.113.9", "owner@example.eu", PASSWORD);
  assert.equal(blocked.status, 429);
  assert.equal(blocked.body.error.code, "too_many_attempts");
  assert.ok(Number(blocked.headers.get("retry-after")) > 0);
  const owner = await loginFrom(d, "198.51.100.7", "owner@example.eu", PASSWORD);
  assert.equal(owner.status, 200, "the attacker's address does not lock the owner out");
  const other = await loginFrom(d, "203.0.113.9", "colleague@example.eu", "whatever-it-is");
  assert.equal(other.status, 401, "the pair is throttled, not the address for every account");
  d.clock.offset += 15 * 60_000;
  const later = await loginFrom(d, "203.0.113.9", "owner@example.eu", PASSWORD);
  assert.equal(later.status, 200, "a new window lets that address in again");
});

Deno.test("login — X-Forwarded-For names the client only behind a trusted proxy, and only the entries that proxy wrote", async () => {
  await using direct = await startDashboardHarness();
  await direct.user("owner@example.eu", direct.h.org, "owner");
  atWindowStart(direct);
  for (let i = 0; i < 10; i++) {
    const r = await loginFrom(direct, `192.0.2.${i}`, "owner@example.eu", "bad-password");
    assert.equal(r.status, 401);
  }
  const spoofed = await loginFrom(direct, "192.0.2.99", "owner@example.eu", "bad-password");
  assert.equal(spoofed.status, 429, "no trusted proxy: the header is ignored");

  await using proxied = await startDashboardHarness({
    env: { SOVRA_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1" },
  });
  await proxied.user("owner@example.eu", proxied.h.org, "owner");
  atWindowStart(proxied);
  for (let i = 0; i < 10; i++) {
    // What the client wrote, then what the proxies appended: its address, then an inner proxy.
    const chain = `192.0.2.${i}, 203.0.113.9, 10.1.2.3`;
    const r = await loginFrom(proxied, chain, "owner@example.eu", "bad-password");
    assert.equal(r.status, 401);
  }
  const again = await loginFrom(proxied, "192.0.2.99, 203.0.113.9", "owner@example.eu", PASSWORD);
  assert.equal(again.status, 429, "the client's own entries do not change its address");
  const audit = await proxied.dash.deps.control.listAudit(proxied.h.org, 1);
  assert.equal(audit[0]!.detail.address, "203.0.113.9");
});

Deno.test("login — an account tried from many addresses slows down to 2 tries a minute from new addresses, never locks out; the owner's usual address is not slowed", async () => {
  await using d = await startDashboardHarness({ env: { SOVRA_TRUSTED_PROXIES: "127.0.0.1" } });
  await d.user("owner@example.eu", d.h.org, "owner");
  atWindowStart(d);
  assert.equal((await loginFrom(d, "198.51.100.7", "owner@example.eu", PASSWORD)).status, 200);
  for (let i = 0; i < 20; i++) {
    const from = `203.0.113.${Math.floor(i / 7)}`;
    const r = await loginFrom(d, from, "owner@example.eu", "bad-password");
    assert.equal(r.status, 401, `failure ${i}`);
  }
  const fresh = ["192.0.2.1", "192.0.2.2", "192.0.2.3"];
  assert.equal((await loginFrom(d, fresh[0]!, "owner@example.eu", "bad-1")).status, 401);
  assert.equal((await loginFrom(d, fresh[1]!, "owner@example.eu", "bad-2")).status, 401);
  const slowed = await loginFrom(d, fresh[2]!, "owner@example.eu", PASSWORD);
  assert.equal(slowed.status, 429, "the third try this minute from a new address waits");
  const wait = Number(slowed.headers.get("retry-after"));
  assert.ok(wait > 0 && wait <= 60, `retry after ${wait} s`);
  const owner = await loginFrom(d, "198.51.100.7", "owner@example.eu", PASSWORD);
  assert.equal(owner.status, 200, "the owner's known address is not slowed");
  d.clock.offset += 60_000;
  const next = await loginFrom(d, fresh[2]!, "owner@example.eu", PASSWORD);
  assert.equal(next.status, 200, "slowed down, never locked out");
});

Deno.test("sessions — idle expiry, absolute expiry and logout end the session", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  const idle = await ApiClient.signedIn(d.url, "owner@example.eu");
  d.clock.offset += 29 * 60_000;
  assert.equal((await idle.get("/api/session")).status, 200, "used within 30 minutes");
  d.clock.offset += 29 * 60_000;
  assert.equal((await idle.get("/api/session")).status, 200, "the use refreshed it");
  d.clock.offset += 31 * 60_000;
  const expired = await idle.get("/api/session");
  assert.equal(expired.status, 401);
  assert.equal(expired.body.error.code, "not_authenticated");

  const busy = await ApiClient.signedIn(d.url, "owner@example.eu");
  let aliveMinutes = 0;
  while (aliveMinutes < 13 * 60) {
    d.clock.offset += 15 * 60_000;
    if ((await busy.get("/api/session")).status === 401) break;
    aliveMinutes += 15;
  }
  assert.ok(aliveMinutes >= 11 * 60 + 45, `alive ${aliveMinutes} min while in use`);
  assert.ok(aliveMinutes < 12 * 60, "ended by the 12 h absolute limit");

  const out = await ApiClient.signedIn(d.url, "owner@example.eu");
  const cookie = out.cookie;
  assert.equal((await out.post("/api/logout")).status, 200);
  out.cookie = cookie; // replaying the old cookie after logout
  assert.equal((await out.get("/api/session")).status, 401);
});

Deno.test("set-password link — works once, within 24 h, a newer one revokes it, and ends the user's other sessions", async () => {
  await using d = await startDashboardHarness();
  const invited = await createUser(d.dash.deps, {
    email: "new@example.eu",
    org: d.h.org,
    role: "admin",
    actor: "test",
  });
  const url = new URL(invited.set_password_url!);
  assert.equal(url.origin, d.url);
  const token = url.searchParams.get("token")!;
  const c = new ApiClient(d.url);
  assert.equal(
    (await c.post("/api/login", { email: "new@example.eu", password: "" })).status,
    401,
  );
  const short = await c.post("/api/set-password", { token, password: "short" });
  assert.equal(short.status, 400);
  assert.equal(short.body.error.param, "password");
  const set = await c.post("/api/set-password", { token, password: PASSWORD });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  const reuse = await c.post("/api/set-password", { token, password: PASSWORD });
  assert.equal(reuse.status, 400);
  const session = await ApiClient.signedIn(d.url, "new@example.eu");
  assert.equal((await session.get("/api/session")).status, 200);

  // A newer link revokes the older one.
  const older = new URL(await issueSetPasswordLink(d.dash.deps, set.body.user.id));
  const reset = new URL(await issueSetPasswordLink(d.dash.deps, set.body.user.id));
  const revoked = await c.post("/api/set-password", {
    token: older.searchParams.get("token"),
    password: "the older link's choice",
  });
  assert.equal(revoked.status, 400, "the older link was revoked by the newer");
  assert.equal(revoked.body.error.param, "token");
  // A reset link used later ends that session; the new password works.
  const newPassword = "another long passphrase";
  const token2 = reset.searchParams.get("token")!;
  assert.equal(
    (await c.post("/api/set-password", { token: token2, password: newPassword })).status,
    200,
  );
  assert.equal((await session.get("/api/session")).status, 401);
  await ApiClient.signedIn(d.url, "new@example.eu", newPassword);

  // Links end after 24 h.
  const late = new URL(await issueSetPasswordLink(d.dash.deps, set.body.user.id));
  d.clock.offset += 24 * 3_600_000 + 1000;
  const token3 = late.searchParams.get("token")!;
  const expired = await c.post("/api/set-password", { token: token3, password: PASSWORD });
  assert.equal(expired.status, 400);
  assert.equal(expired.body.error.param, "token");
  // Only hashes are stored.
  for await (const e of d.h.store.kv.list({ prefix: ["pw_token"] })) {
    assert.ok(!JSON.stringify(e).includes(token3));
  }
});

Deno.test("CSRF — cross-site JSON and forms are refused; forms to the API need JSON", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const path = `/api/orgs/${d.h.org}/keys`;
  const evil = await c.request("POST", path, { name: "x" }, { origin: "https://evil.example" });
  assert.equal(evil.status, 403);
  assert.equal((await evil.json()).error.code, "csrf_refused");
  const site = await c.request("POST", path, { name: "x" }, { "sec-fetch-site": "cross-site" });
  assert.equal(site.status, 403);
  await site.body?.cancel();
  const form = await fetch(`${d.url}${path}`, {
    method: "POST",
    headers: { cookie: c.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: "name=x",
  });
  assert.equal(form.status, 415);
  await form.body?.cancel();
  const page = await fetch(`${d.url}/orgs/${d.h.org}/keys`, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie: c.cookie,
      origin: "https://evil.example",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "name=x",
  });
  assert.equal(page.status, 403);
  await page.body?.cancel();
  assert.equal((await c.get(`/api/orgs/${d.h.org}/keys`)).body.data.length, 1, "no key created");
});

Deno.test("pages — strict CSP, no inline script, secure headers, assets served locally", async () => {
  await using d = await startDashboardHarness();
  const login = await fetch(`${d.url}/login`);
  const html = await login.text();
  const csp = login.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(login.headers.get("x-content-type-options"), "nosniff");
  assert.equal(login.headers.get("x-frame-options"), "DENY");
  assert.equal(login.headers.get("cache-control"), "no-store");
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) assert.match(tag, /src="\/static\//);
  for (const asset of ["htmx.min.js", "uPlot.iife.min.js", "uPlot.min.css", "dashboard.js"]) {
    const res = await fetch(`${d.url}/static/${asset}`);
    assert.equal(res.status, 200);
    assert.ok((await res.text()).length > 500);
  }
  const anonymous = await fetch(`${d.url}/orgs/${d.h.org}/overview`, { redirect: "manual" });
  assert.equal(anonymous.status, 303);
  assert.match(anonymous.headers.get("location") ?? "", /^\/login\?next=/);
  await anonymous.body?.cancel();
});

Deno.test("secrets — every answer that carries a key, snippet or link is Cache-Control: no-store", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  const c = await ApiClient.signedIn(d.url, "owner@example.eu");
  const form = (path: string, body: string) =>
    fetch(`${d.url}${path}`, {
      method: "POST",
      headers: {
        cookie: c.cookie,
        origin: d.url,
        "content-type": "application/x-www-form-urlencoded",
      },
      body,
    });
  const key = await c.post(`/api/orgs/${d.h.org}/keys`, { name: "k" });
  assert.equal(key.status, 201);
  assert.equal(key.headers.get("cache-control"), "no-store");
  const keyPage = await form(`/orgs/${d.h.org}/keys`, "name=k2");
  assert.match(await keyPage.text(), /id="new-key-panel" hx-history="false"/);
  assert.equal(keyPage.headers.get("cache-control"), "no-store");
  const invite = await c.post(`/api/orgs/${d.h.org}/members`, {
    email: "a@example.eu",
    role: "viewer",
  });
  assert.equal(invite.headers.get("cache-control"), "no-store");
  const invitePage = await form(`/orgs/${d.h.org}/members`, "email=b%40example.eu&role=viewer");
  const html = await invitePage.text();
  assert.match(html, /<div class="notice"[^>]* hx-history="false"/);
  assert.equal(invitePage.headers.get("cache-control"), "no-store");
  const link = new URL(invite.body.invite_url);
  const linkPage = await fetch(link);
  await linkPage.body?.cancel();
  assert.equal(linkPage.headers.get("cache-control"), "no-store");
  const htmxConfig = JSON.parse(
    html.match(/<meta name="htmx-config" content="([^"]+)"/)![1]!.replaceAll("&quot;", '"'),
  );
  assert.equal(htmxConfig.historyCacheSize, 0, "htmx keeps no history snapshot of any page");
});
