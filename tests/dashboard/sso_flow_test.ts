/**
 * Single sign-on against a real OpenID provider on 127.0.0.1 (oidc-provider): just-in-time
 * membership from e-mail-domain and group rules, the highest matching role, roles following
 * the provider at every sign-in (a group removed → the role lost), memberships given by hand
 * left alone, linking to an existing password account only with its password, the test
 * sign-in (claims shown, nothing created), and sign-out offering the provider's end-session.
 */
import assert from "node:assert/strict";
import { FlowClient, PROVIDER, refusalText, startSsoHarness } from "./sso_support.ts";
import { PASSWORD } from "./support.ts";
import { startPostgres } from "../helpers/postgres.ts";

Deno.test("sso — first sign-in with a matching domain rule creates the account and membership", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"] });
  s.idp.accounts.set("alice", { email: "Alice@acme.eu", email_verified: true, name: "Alice" });
  const browser = new FlowClient();
  const page = await browser.signIn(s.url, "alice", `/orgs/${s.org}/overview`);
  assert.equal(page.status, 200, page.html);
  assert.match(page.html, new RegExp(`url=/orgs/${s.org}/overview`));

  const session = await browser.api(s.url, "/api/session");
  assert.equal(session.status, 200);
  assert.equal(session.body.user.email, "alice@acme.eu");
  assert.equal(session.body.user.password_set, false);
  assert.deepEqual(
    session.body.memberships.map((m: { org: string; role: string }) => [m.org, m.role]),
    [[s.org, "viewer"]],
  );
  const deps = s.d.dash.deps;
  const user = (await deps.accounts.findUserByEmail("alice@acme.eu"))!;
  const [identity] = await deps.sso.listIdentitiesOfUser(user.id);
  assert.equal(identity?.issuer, s.idp.issuer);
  assert.equal(identity?.subject, "alice");
  assert.equal(identity?.provider, PROVIDER);
  assert.ok(await deps.sso.getManaged(s.org, user.id));
  const audit = await deps.control.listAudit(s.org, 10);
  const joined = audit.find((e) => e.action === "member.joined");
  assert.equal(joined?.target, "alice@acme.eu");
  assert.equal(joined?.detail.role, "viewer");
  assert.ok(audit.some((e) => e.action === "sso.signed_in"));
  assert.equal(refusalText(page), "");
});

Deno.test("sso — the highest matching rule wins; a group removed at the provider takes the role away at the next sign-in", async () => {
  await using s = await startSsoHarness();
  await s.bind({
    domains: ["acme.eu = viewer"],
    groups: ["sovra-admins = admin", "/acme/sovra-owners = owner"],
  });
  const deps = s.d.dash.deps;
  // Another owner, so that demoting bob from owner leaves the organization one.
  await s.d.user("boss@acme.eu", s.org, "owner");
  s.idp.accounts.set("bob", {
    email: "bob@acme.eu",
    email_verified: true,
    groups: ["sovra-admins"],
  });
  assert.equal((await new FlowClient().signIn(s.url, "bob")).status, 200);
  const bob = (await deps.accounts.findUserByEmail("bob@acme.eu"))!;
  assert.equal((await deps.accounts.getMembership(s.org, bob.id))?.role, "admin");

  s.idp.accounts.set("bob", {
    email: "bob@acme.eu",
    email_verified: true,
    groups: ["sovra-admins", "/acme/sovra-owners"],
  });
  assert.equal((await new FlowClient().signIn(s.url, "bob")).status, 200);
  assert.equal((await deps.accounts.getMembership(s.org, bob.id))?.role, "owner");

  // Out of both groups: only the domain rule is left.
  s.idp.accounts.set("bob", { email: "bob@acme.eu", email_verified: true, groups: [] });
  const browser = new FlowClient();
  assert.equal((await browser.signIn(s.url, "bob")).status, 200);
  assert.equal((await deps.accounts.getMembership(s.org, bob.id))?.role, "viewer");
  const changed = (await deps.control.listAudit(s.org, 20))
    .filter((e) => e.action === "member.role_changed" && e.target === "bob@acme.eu")
    .map((e) => [e.detail.from, e.detail.to, e.detail.provider]);
  assert.deepEqual(changed, [["owner", "viewer", PROVIDER], ["admin", "owner", PROVIDER]]);

  // No rule at all any more: the membership goes and the sign-in is refused (no new session).
  s.idp.accounts.set("bob", { email: "bob@elsewhere.eu", email_verified: true, groups: [] });
  const sessions = JSON.parse(await s.snapshot()).sessions;
  const refused = await new FlowClient().signIn(s.url, "bob");
  assert.equal(refused.status, 403);
  assert.match(refusalText(refused), /no longer a member of any organization/);
  assert.equal(await deps.accounts.getMembership(s.org, bob.id), undefined);
  assert.equal(await deps.sso.getManaged(s.org, bob.id), undefined);
  assert.equal(JSON.parse(await s.snapshot()).sessions, sessions);
  const removed = (await deps.control.listAudit(s.org, 20))
    .find((e) => e.action === "member.removed" && e.target === "bob@acme.eu");
  assert.equal(removed?.detail.previous_role, "viewer");
  // The earlier session reaches the organization no more.
  assert.equal((await browser.api(s.url, `/api/orgs/${s.org}/overview`)).status, 404);
});

Deno.test("sso — an e-mail of an existing password account links only with that account's password; its own role stays", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"] });
  const deps = s.d.dash.deps;
  const dora = await s.d.user("dora@acme.eu", s.org, "admin");
  s.idp.accounts.set("dora-at-idp", { email: "dora@acme.eu", email_verified: true });
  const before = await s.snapshot();

  const browser = new FlowClient();
  const linkPage = await browser.signIn(s.url, "dora-at-idp");
  assert.equal(linkPage.status, 200);
  assert.match(linkPage.html, /action="\/sso\/link"/);
  assert.match(linkPage.html, /exists already/);
  assert.equal(await s.snapshot(), before, "nothing is linked before the password");
  const token = linkPage.html.match(/name="token" value="([\w-]+)"/)![1]!;

  const wrong = await browser.submit(`${s.url}/sso/link`, { token, password: "not the password" });
  assert.equal(wrong.status, 401);
  assert.match(wrong.html, /The password is wrong/);
  assert.equal(await s.snapshot(), before);

  const linked = await browser.submit(`${s.url}/sso/link`, { token, password: PASSWORD });
  assert.equal(linked.status, 200, linked.html);
  const [identity] = await deps.sso.listIdentitiesOfUser(dora);
  assert.equal(identity?.subject, "dora-at-idp");
  // An owner's invitation (admin) is not SSO's to change, though the domain rule says viewer.
  assert.equal((await deps.accounts.getMembership(s.org, dora))?.role, "admin");
  assert.equal(await deps.sso.getManaged(s.org, dora), undefined);
  const session = await browser.api(s.url, "/api/session");
  assert.equal(session.body.user.email, "dora@acme.eu");
  assert.ok((await deps.control.listAudit(null, 20)).some((e) => e.action === "sso.linked"));

  // The token worked once; the next sign-in needs no password.
  const again = await browser.submit(`${s.url}/sso/link`, { token, password: PASSWORD });
  assert.equal(again.status, 401);
  const next = await new FlowClient().signIn(s.url, "dora-at-idp");
  assert.equal(next.status, 200);
  assert.doesNotMatch(next.html, /sso\/link/);
});

Deno.test("sso — an existing account without a password cannot be linked; nothing is created", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"] });
  await s.d.dash.deps.accounts.createUser({
    id: "usr_nopassword1",
    email: "invited@acme.eu",
    password_hash: null,
    operator: false,
    created: new Date().toISOString(),
    password_changed_at: null,
  });
  s.idp.accounts.set("invited", { email: "invited@acme.eu", email_verified: true });
  const before = await s.snapshot();
  const page = await new FlowClient().signIn(s.url, "invited");
  assert.equal(page.status, 403);
  assert.match(refusalText(page), /has no password yet/);
  assert.equal(await s.snapshot(), before);
});

Deno.test("sso — test sign-in shows the claims and the role the rules give, creates nothing, shows no token", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"], groups: ["sovra-admins = admin"] });
  await s.d.user("owner@acme.eu", s.org, "owner");
  await s.d.user("viewer@acme.eu", s.org, "viewer");
  s.idp.accounts.set("erin", {
    email: "erin@acme.eu",
    email_verified: true,
    groups: ["sovra-admins", "staff"],
    name: "Erin",
  });

  const owner = new FlowClient();
  assert.equal(
    (await owner.api(s.url, "/api/login", "POST", { email: "owner@acme.eu", password: PASSWORD }))
      .status,
    200,
  );
  const before = await s.snapshot();
  const result = await owner.signInAt(
    `${s.url}/sso/test?provider=${PROVIDER}&org=${s.org}`,
    "erin",
  );
  assert.equal(result.status, 200, result.html);
  assert.match(
    result.html,
    /id="sso-test-role">admin \(domain acme.eu → viewer; group sovra-admins → admin\)/,
  );
  assert.match(result.html, /&quot;email&quot;: &quot;erin@acme.eu&quot;/);
  assert.match(result.html, /&quot;sub&quot;: &quot;erin&quot;/);
  assert.match(result.html, /staff/);
  assert.doesNotMatch(result.html, /eyJ[\w-]+\.eyJ[\w-]+/, "no JWT on the page");
  assert.equal(await s.snapshot(), before, "a test sign-in creates and changes nothing");
  // The owner's own session is unchanged.
  assert.equal((await owner.api(s.url, "/api/session")).body.user.email, "owner@acme.eu");

  const viewer = new FlowClient();
  await viewer.api(s.url, "/api/login", "POST", { email: "viewer@acme.eu", password: PASSWORD });
  const refused = await viewer.follow(`${s.url}/sso/test?provider=${PROVIDER}&org=${s.org}`);
  assert.equal(refused.status, 403);
});

Deno.test("sso — sign-out ends the Sovra session and offers the provider's end-session endpoint", async () => {
  await using s = await startSsoHarness();
  await s.bind({ domains: ["acme.eu = viewer"] });
  s.idp.accounts.set("fay", { email: "fay@acme.eu", email_verified: true });
  const browser = new FlowClient();
  assert.equal((await browser.signIn(s.url, "fay")).status, 200);
  const out = await browser.submit(`${s.url}/logout`, {});
  assert.equal(out.status, 200);
  const href = out.html.match(/id="sso-end-session"[^>]*href="([^"]+)"/)?.[1]?.replace(
    /&amp;/g,
    "&",
  );
  assert.ok(href, out.html);
  const end = new URL(href!);
  assert.equal(end.origin + end.pathname, `${s.idp.issuer}/session/end`);
  assert.equal(end.searchParams.get("client_id"), s.idp.clientId);
  assert.equal(end.searchParams.get("post_logout_redirect_uri"), `${s.url}/login`);
  assert.equal((await browser.api(s.url, "/api/session")).status, 401);
  assert.equal(JSON.parse(await s.snapshot()).sessions, 0);

  // Signing out at the provider too brings the browser back to Sovra's sign-in page, and the
  // next sign-in asks for the provider's login again.
  const confirm = await browser.follow(href!);
  const form = confirm.html.match(/action="([^"]+)"/)![1]!;
  const xsrf = confirm.html.match(/name="xsrf" value="([^"]+)"/)![1]!;
  const back = await browser.submit(new URL(form, confirm.url).href, { xsrf, logout: "yes" });
  assert.equal(back.url, `${s.url}/login`);
  const again = await browser.follow(`${s.url}/sso/start?provider=${PROVIDER}`);
  assert.match(again.html, /name=login/);
});

Deno.test("sso — on PostgreSQL: first sign-in, membership, identity, SSO session", async () => {
  const cluster = await startPostgres();
  const dir = await Deno.makeTempDir({ prefix: "sovra-pg-sso-" });
  try {
    await using s = await startSsoHarness({
      env: { SOVRA_DATABASE_URL: await cluster.database(), SOVRA_SPILL_PATH: `${dir}/spill.jsonl` },
    });
    assert.equal(s.d.h.store.health?.().backend, "postgres");
    await s.bind({ groups: ["staff = admin"] });
    s.idp.accounts.set("gus", { email: "gus@acme.eu", email_verified: false, groups: ["staff"] });
    // Unverified e-mail: no account, even though the group matches.
    const refused = await new FlowClient().signIn(s.url, "gus");
    assert.equal(refused.status, 403);
    assert.equal(JSON.parse(await s.snapshot()).users.length, 0);

    s.idp.accounts.set("gus", { email: "gus@acme.eu", email_verified: true, groups: ["staff"] });
    const browser = new FlowClient();
    assert.equal((await browser.signIn(s.url, "gus")).status, 200);
    const session = await browser.api(s.url, "/api/session");
    assert.deepEqual(session.body.memberships.map((m: { role: string }) => m.role), ["admin"]);
    const out = await browser.api(s.url, "/api/logout", "POST", {});
    assert.match(out.body.end_session_url, /\/session\/end\?/);
  } finally {
    await cluster.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
