/**
 * An organization that requires two-factor sign-in asks it of operators too — also on the
 * operator's own routes that act on it (suspend, restore), not only on its pages.
 */
import assert from "node:assert/strict";
import { ApiClient, enrolTwoFactor, startDashboardHarness } from "./support.ts";

Deno.test("operator and require_2fa — suspending an organization that requires 2FA needs a two-factor session", async () => {
  await using d = await startDashboardHarness();
  const enrol = (c: ApiClient) => enrolTwoFactor(d, c);
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("op@example.eu", undefined, undefined, true);
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  await enrol(owner);
  await owner.json("PATCH", `/api/orgs/${d.h.org}/settings`, { require_2fa: true });

  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  for (const action of ["suspend", "restore"]) {
    const refused = await op.post(`/api/operator/orgs/${d.h.org}/${action}`, {});
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "two_factor_required");
  }
  assert.equal((await d.dash.deps.control.getOrgSettings(d.h.org)).suspended_at, null);
  assert.equal(
    (await op.post(`/api/operator/orgs/${d.otherOrg}/suspend`, {})).status,
    200,
    "elsewhere it works",
  );
  await enrol(op);
  assert.equal((await op.post(`/api/operator/orgs/${d.h.org}/suspend`, {})).status, 200);
});
