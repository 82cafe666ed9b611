/**
 * Organizations that require single sign-on. A session signed in with a password does not
 * reach such an organization, except for its owners: that is the break-glass path when the
 * identity provider is down or misconfigured (each such sign-in is audited). A password
 * sign-in that would reach no organization at all is refused with the provider to use.
 */
import type { DashboardDeps } from "../deps.ts";
import type { MembershipRecord, UserRecord } from "../../state/account_records.ts";
import { audit } from "../audit.ts";
import { ssoForbidden } from "../errors.ts";

/** The memberships this session may use (signed in through `sessionProvider`, or a password). */
export async function usableMemberships(
  deps: Pick<DashboardDeps, "sso">,
  memberships: MembershipRecord[],
  sessionProvider: string | undefined,
): Promise<MembershipRecord[]> {
  const out = [];
  for (const m of memberships) {
    const binding = await deps.sso.getBinding(m.org);
    if (!binding?.require_sso || m.role === "owner" || binding.provider === sessionProvider) {
      out.push(m);
    }
  }
  return out;
}

/** Where a password of `user` gets in: the organizations it reaches, and those that refuse it. */
async function passwordReach(deps: Pick<DashboardDeps, "accounts" | "sso">, user: UserRecord) {
  const memberships = await deps.accounts.listMembershipsOfUser(user.id);
  const required: Array<{ org: string; provider: string }> = [];
  const breakGlass: Array<{ org: string; provider: string }> = [];
  let usable = 0;
  for (const m of memberships) {
    const binding = await deps.sso.getBinding(m.org);
    if (!binding?.require_sso) usable++;
    else if (m.role === "owner") {
      usable++;
      breakGlass.push({ org: m.org, provider: binding.provider });
    } else required.push({ org: m.org, provider: binding.provider });
  }
  return { usable, required, breakGlass };
}

async function providerNames(deps: Pick<DashboardDeps, "sso">, ids: string[]) {
  const names = [];
  for (const id of new Set(ids)) names.push((await deps.sso.getProvider(id))?.name ?? id);
  return names;
}

/**
 * The identity providers to sign in with instead, when every organization of the user requires
 * single sign-on and the user owns none of them (a password would reach nothing); null when a
 * password is of use (an operator, an owner's break-glass, any organization without the
 * requirement, or no organization yet). Password reset follows this rule.
 */
export async function ssoInsteadOfPassword(
  deps: Pick<DashboardDeps, "accounts" | "sso">,
  user: UserRecord,
): Promise<string[] | null> {
  if (user.operator) return null;
  const reach = await passwordReach(deps, user);
  if (reach.usable > 0 || reach.required.length === 0) return null;
  return await providerNames(deps, reach.required.map((r) => r.provider));
}

/** Refuses a password sign-in that SSO-required organizations leave with nowhere to go. */
export async function checkPasswordSignIn(deps: DashboardDeps, user: UserRecord): Promise<void> {
  if (user.operator) return;
  const { usable, required, breakGlass } = await passwordReach(deps, user);
  if (usable === 0 && required.length > 0) {
    const names = await providerNames(deps, required.map((r) => r.provider));
    for (const r of required) {
      await audit(deps, r.org, user.email, "sso.password_refused", user.email, {
        provider: r.provider,
      });
    }
    throw ssoForbidden(
      "sso_required",
      `Your organization requires single sign-on: passwords are off for its members. Use “Sign in with ${
        names.join("” or “")
      }” instead.`,
    );
  }
  for (const b of breakGlass) {
    await audit(deps, b.org, user.email, "sso.break_glass", user.email, { provider: b.provider });
  }
}
