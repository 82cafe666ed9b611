/**
 * A sign-in checks the password it read before a concurrent password change ended every
 * session; the session it then writes carries that old password's epoch and is refused at its
 * first use. The interleaving is forced: the sign-in's user lookup (on the real store) is held
 * until the change has finished.
 */
import assert from "node:assert/strict";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";
import type { UserRecord } from "../../src/state/account_records.ts";

Deno.test("session and password race — a sign-in with the old password, in flight during the change, keeps no session", async () => {
  await using d = await startDashboardHarness();
  await d.user("vic@example.eu", d.h.org, "owner");
  const victim = await ApiClient.signedIn(d.url, "vic@example.eu");
  const accounts = d.dash.deps.accounts;
  const lookup = accounts.findUserByEmail.bind(accounts);
  let read!: () => void;
  const wasRead = new Promise<void>((r) => read = r);
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  accounts.findUserByEmail = async (email: string): Promise<UserRecord | undefined> => {
    const user = await lookup(email);
    accounts.findUserByEmail = lookup; // hold the first lookup only
    read();
    await held;
    return user;
  };

  const attacker = new ApiClient(d.url);
  const login = attacker.post("/api/login", { email: "vic@example.eu", password: PASSWORD });
  await wasRead;
  const change = await victim.post("/api/account/password", {
    current_password: PASSWORD,
    new_password: "the new secret password",
  });
  assert.equal(change.status, 200, JSON.stringify(change.body));
  release();
  const signedIn = await login;
  assert.equal(signedIn.status, 200, "the old password was checked against the old record");
  const after = await attacker.get(`/api/orgs/${d.h.org}/overview`);
  assert.equal(after.status, 401, "but its session ended with the change");
  assert.equal(
    (await victim.get(`/api/orgs/${d.h.org}/overview`)).status,
    200,
    "the changer's stays",
  );
});
