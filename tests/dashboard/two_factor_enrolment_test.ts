/**
 * Starting two-factor enrolment asks for the current password, so a stolen session cannot put
 * its own authenticator on the account; and a pending secret belongs to the session that
 * started it — another session of the account neither sees it nor confirms it.
 */
import assert from "node:assert/strict";
import * as OTPAuth from "otpauth";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";

Deno.test("two-factor enrolment — the password to start; the pending secret is the starting session's only", async () => {
  await using d = await startDashboardHarness();
  await d.user("eve@example.eu", d.h.org, "owner");
  const victim = await ApiClient.signedIn(d.url, "eve@example.eu");
  const thief = await ApiClient.signedIn(d.url, "eve@example.eu");

  for (const body of [undefined, { password: "not the password" }]) {
    const refused = await thief.post("/api/account/2fa/setup", body ?? {});
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.param, "password");
  }
  assert.equal(
    await d.dash.deps.twoFactor.getTotp((await victim.get("/api/session")).body.user.id),
    undefined,
  );

  const setup = await victim.post("/api/account/2fa/setup", { password: PASSWORD });
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  const secret: string = setup.body.secret;
  // The page shown after a wrong code repeats the pending secret — only to its own session.
  const page = await fetch(`${d.url}/account/2fa/confirm`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: d.url,
      cookie: thief.cookie,
    },
    body: "code=000000",
  });
  assert.equal(page.status, 400);
  assert.ok(!(await page.text()).includes(secret), "another session does not see the secret");
  const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) })
    .generate({ timestamp: Date.now() + d.clock.offset });
  const stolen = await thief.post("/api/account/2fa/confirm", { code });
  assert.equal(stolen.status, 400, "nor confirms it");
  assert.equal((await victim.post("/api/account/2fa/confirm", { code })).status, 200);
});
