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

/** Refuses a password sign-in that SSO-required organizations leave with nowhere to go. */
export async function checkPasswordSignIn(deps: DashboardDeps, user: UserRecord): Promise<void> {
  if (user.operator) return;
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
  if (usable === 0 && required.length > 0) {
    const names = [];
    for (const id of new Set(required.map((r) => r.provider))) {
      names.push((await deps.sso.getProvider(id))?.name ?? id);
    }
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
