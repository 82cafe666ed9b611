/** What the account areas share: the deps of user-creating code, and the e-mail rule. */
import type { DashboardDeps } from "../deps.ts";
import { badInput } from "../errors.ts";

/** What creating users and invitations needs (the admin CLI has no dashboard running). */
export type UserDeps = Pick<DashboardDeps, "accounts" | "control" | "now" | "publicUrl">;

export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw badInput("Give a valid e-mail address.", "email");
  }
  return email;
}
