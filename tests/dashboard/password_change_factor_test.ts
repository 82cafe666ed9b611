/**
 * A password change replaces the session; the new one has the second factor only when the
 * old one had it. A session from before the account's enrolment (a stolen cookie, say) does not
 * turn into a two-factor one by changing the password.
 */
import assert from "node:assert/strict";
import { ApiClient, enrolTwoFactor, PASSWORD, startDashboardHarness } from "./support.ts";

Deno.test("password change — a session without the second factor gets none from changing the password; one with it keeps it", async () => {
  await using d = await startDashboardHarness();
  const enrol = (c: ApiClient) => enrolTwoFactor(d, c);
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("vic@example.eu", d.h.org, "admin");
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  await enrol(owner);
  await owner.json("PATCH", `/api/orgs/${d.h.org}/settings`, { require_2fa: true });
  const old = await ApiClient.signedIn(d.url, "vic@example.eu");
  const vic = await ApiClient.signedIn(d.url, "vic@example.eu");
  await enrol(vic);
  assert.equal((await old.get(`/api/orgs/${d.h.org}/overview`)).status, 403);

  const changed = await old.post("/api/account/password", {
    current_password: PASSWORD,
    new_password: "attacker-chosen-password",
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  const after = await old.get(`/api/orgs/${d.h.org}/overview`);
  assert.equal(after.status, 403, "no code was ever given in this browser");
  assert.equal(after.body.error.code, "two_factor_required");

  // The owner's two-factor session changes its password and keeps reaching the organization.
  const mine = await owner.post("/api/account/password", {
    current_password: PASSWORD,
    new_password: "the owner's new password",
  });
  assert.equal(mine.status, 200);
  assert.equal((await owner.get(`/api/orgs/${d.h.org}/overview`)).status, 200);
});
