/**
 * The account's own single sign-on links: listed on Account security, unlinked there one by
 * one, and all cut by a new password.
 *
 * A new password cuts the account's single sign-on links. Whoever changes or resets the
 * password may be taking the account back from someone who got in: an identity linked with a
 * phished password would otherwise sign them in again through the provider, with no password.
 * The person re-links at the next SSO sign-in (the account's password, and its code with
 * two-factor sign-in).
 */
import type { DashboardDeps, Viewer } from "../deps.ts";
import type { UserRecord } from "../../state/account_records.ts";
import { auditAccount } from "../audit.ts";
import { badInput, notFound } from "../errors.ts";

/** Unlinks every SSO identity of the user; audited as `sso.unlinked` when there was one. */
export async function unlinkIdentities(
  deps: Pick<DashboardDeps, "sso" | "accounts" | "control" | "now">,
  user: UserRecord,
  why: "password_changed" | "password_set",
): Promise<void> {
  const identities = await deps.sso.listIdentitiesOfUser(user.id);
  for (const identity of identities) {
    await deps.sso.deleteIdentity(identity.issuer, identity.subject);
  }
  if (identities.length === 0) return;
  await auditAccount(deps, user, user.email, "sso.unlinked", {
    identities: identities.length,
    providers: [...new Set(identities.map((i) => i.provider))].join(","),
    reason: why,
  });
}

/** What the account sees of a linked identity (never a token). */
export interface IdentityView {
  provider: string;
  provider_name: string;
  issuer: string;
  subject: string;
  created: string;
  last_sign_in: string;
}

export async function accountIdentities(
  deps: Pick<DashboardDeps, "sso">,
  userId: string,
): Promise<IdentityView[]> {
  const out = [];
  for (const i of await deps.sso.listIdentitiesOfUser(userId)) {
    out.push({
      provider: i.provider,
      provider_name: (await deps.sso.getProvider(i.provider))?.name ?? i.provider,
      issuer: i.issuer,
      subject: i.subject,
      created: i.created,
      last_sign_in: i.last_sign_in,
    });
  }
  return out;
}

/**
 * Unlinks one of the viewer's own identities (another's is 404). An account without a password
 * keeps its last one: unlinking it would leave no way to sign in.
 */
export async function unlinkOwnIdentity(
  deps: Pick<DashboardDeps, "sso" | "accounts" | "control" | "now">,
  viewer: Viewer,
  issuer: string,
  subject: string,
): Promise<IdentityView[]> {
  const identity = await deps.sso.getIdentity(issuer, subject);
  if (!identity || identity.user !== viewer.user.id) throw notFound("Linked sign-in");
  const user = (await deps.accounts.getUser(viewer.user.id)) ?? viewer.user;
  const all = await deps.sso.listIdentitiesOfUser(user.id);
  if (user.password_hash === null && all.length <= 1) {
    throw badInput(
      "This account has no password, so this sign-in is its only way in: set a password first (ask for a reset link), then unlink it.",
      "subject",
    );
  }
  await deps.sso.deleteIdentity(issuer, subject);
  await auditAccount(deps, user, user.email, "sso.unlinked", {
    identities: 1,
    providers: identity.provider,
    reason: "by_user",
  });
  return await accountIdentities(deps, user.id);
}
