/**
 * Every place that checks a two-factor code counts wrong codes with the sign-in's second step
 * (10 per account and client address per 15 minutes): turning it off (even with the right
 * password) and renewing the recovery codes cannot be used to guess codes faster.
 */
import assert from "node:assert/strict";
import * as OTPAuth from "otpauth";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";

Deno.test("two-factor throttle — wrong codes at disable and at recovery-code renewal hit the sign-in's limit", async () => {
  await using d = await startDashboardHarness();
  await d.user("ann@example.eu", d.h.org, "owner");
  const ann = await ApiClient.signedIn(d.url, "ann@example.eu");
  const setup = await ann.post("/api/account/2fa/setup", { password: PASSWORD });
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.body.secret) });
  const codeAt = (steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 });
  assert.equal((await ann.post("/api/account/2fa/confirm", { code: codeAt(0) })).status, 200);
  const valid = new Set([-1, 0, 1, 2].map(codeAt));
  const wrong = Array.from({ length: 30 }, (_, i) => String(100000 + i)).filter((c) =>
    !valid.has(c)
  );

  const disable: number[] = [];
  for (const code of wrong.slice(0, 11)) {
    disable.push((await ann.post("/api/account/2fa/disable", { password: PASSWORD, code })).status);
  }
  assert.deepEqual(disable, [...Array(10).fill(400), 429], "the right password does not reset it");
  const renew = await ann.post("/api/account/2fa/recovery-codes", { code: wrong[11] });
  assert.equal(renew.status, 429, "the same counter");
  assert.ok(renew.headers.get("retry-after"));
});
