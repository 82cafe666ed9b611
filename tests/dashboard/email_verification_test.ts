/**
 * Verified e-mail: Sovra mails no invitations, so an owner holding an invitation link can make
 * the account of someone else's e-mail with a password of her choice. Such an account joins
 * only the organization whose link made it; another organization's invitation (or the
 * operator's `user create --org`) waits until a set-password link sent to the mailbox is used.
 * The link's answer is the same whether or not the e-mail had an account.
 */
import assert from "node:assert/strict";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";
import { linkIn, startSmtpCapture } from "../helpers/smtp_server.ts";
import { createUser } from "../../src/dashboard/areas/accounts.ts";

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

Deno.test("verified e-mail — an account made through an owner's link joins no other organization until its mailbox proves it", async () => {
  await using smtp = await startSmtpCapture();
  await using d = await startDashboardHarness({
    env: { SOVRA_SMTP_URL: smtp.url, SOVRA_SMTP_FROM: "Sovra <noreply@sovra.test>" },
  });
  await d.user("mallory@acme.test", d.h.org, "owner");
  await d.user("boss@bravo.test", d.otherOrg, "owner");
  const mallory = await ApiClient.signedIn(d.url, "mallory@acme.test");
  const invite = async (email: string) =>
    tokenOf(
      (await mallory.post(`/api/orgs/${d.h.org}/members`, { email, role: "viewer" })).body
        .invite_url,
    );
  const anon = new ApiClient(d.url);

  // The link says nothing about whether the e-mail has an account.
  const existing = await anon.post("/api/invitations/create-account", {
    token: await invite("boss@bravo.test"),
    password: "whatever-password-1",
  });
  const made = await anon.post("/api/invitations/create-account", {
    token: await invite("carol@bravo.test"),
    password: "mallory-knows-this",
  });
  assert.equal(made.status, 202, JSON.stringify(made.body));
  assert.equal(existing.status, made.status);
  assert.deepEqual(Object.keys(existing.body).sort(), Object.keys(made.body).sort());
  assert.equal(existing.body.org, made.body.org);

  // Bravo invites its colleague carol@bravo.test; Mallory, holding the account, cannot accept.
  const boss = await ApiClient.signedIn(d.url, "boss@bravo.test");
  await boss.post(`/api/orgs/${d.otherOrg}/members`, { email: "carol@bravo.test", role: "admin" });
  const squatter = await ApiClient.signedIn(d.url, "carol@bravo.test", "mallory-knows-this");
  assert.equal((await squatter.get(`/api/orgs/${d.h.org}/overview`)).status, 200, "its own org");
  const id = (await squatter.get("/api/invitations")).body.data
    .find((i: { org: string }) => i.org === d.otherOrg).id;
  const refused = await squatter.post(`/api/invitations/${id}/accept`);
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, "email_unverified");
  assert.match(refused.body.error.message, /Verify your e-mail first/);
  assert.match(refused.body.error.message, /Forgot your password/);
  assert.equal((await squatter.post(`/api/orgs/${d.otherOrg}/keys`, { name: "m" })).status, 404);
  // Nor does the operator's `user create --org` on the e-mail add it anywhere.
  await assert.rejects(
    createUser(d.dash.deps, {
      email: "carol@bravo.test",
      org: d.otherOrg,
      role: "viewer",
      actor: "cli",
    }),
    (e: { code?: string }) => e.code === "email_unverified",
  );

  // The real Carol asks for a reset link: it goes to her mailbox, and using it verifies.
  await anon.post("/api/password-reset", { email: "carol@bravo.test" });
  await d.dash.deps.background.idle();
  const link = linkIn(smtp.mails.at(-1)!);
  const set = await anon.post("/api/set-password", {
    token: link.searchParams.get("token"),
    password: PASSWORD,
  });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.equal((await squatter.get("/api/session")).status, 401, "Mallory is signed out");
  const carol = await ApiClient.signedIn(d.url, "carol@bravo.test");
  assert.equal((await carol.post(`/api/invitations/${id}/accept`)).status, 200);
  assert.equal((await carol.post(`/api/orgs/${d.otherOrg}/keys`, { name: "c" })).status, 201);
});
