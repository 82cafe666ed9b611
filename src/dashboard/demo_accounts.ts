/**
 * The demo's two logins: an owner of the demo organization and an operator. Each run gives
 * them a fresh random password (printed by the demo), creating them on the first run.
 */
import type { AccountStore } from "../state/account_store.ts";
import { hashPassword } from "./passwords.ts";
import { newSecretToken } from "./secret_tokens.ts";
import { randomId } from "../util/ids.ts";

export interface DemoLogin {
  email: string;
  password: string;
}

async function ensureUser(
  accounts: AccountStore,
  email: string,
  operator: boolean,
  logN: number,
): Promise<{ id: string; login: DemoLogin }> {
  const password = newSecretToken().slice(0, 16);
  const hash = await hashPassword(password, logN);
  const now = new Date().toISOString();
  const existing = await accounts.findUserByEmail(email);
  if (existing) {
    await accounts.setPassword(existing.id, hash, now);
    return { id: existing.id, login: { email, password } };
  }
  const id = randomId("usr_", 12);
  await accounts.createUser({
    id,
    email,
    password_hash: hash,
    operator,
    created: now,
    password_changed_at: now,
  });
  return { id, login: { email, password } };
}

export async function ensureDemoAccounts(
  accounts: AccountStore,
  orgId: string,
  logN: number,
): Promise<{ owner: DemoLogin; operator: DemoLogin }> {
  const owner = await ensureUser(accounts, "owner@demo.sovra.test", false, logN);
  if (!await accounts.getMembership(orgId, owner.id)) {
    await accounts.addMembership({
      org: orgId,
      user: owner.id,
      role: "owner",
      created: new Date().toISOString(),
    });
  }
  const operator = await ensureUser(accounts, "operator@demo.sovra.test", true, logN);
  return { owner: owner.login, operator: operator.login };
}
