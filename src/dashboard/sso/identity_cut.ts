/**
 * A new password cuts the account's single sign-on links. Whoever changes or resets the
 * password may be taking the account back from someone who got in: an identity linked with a
 * phished password would otherwise sign them in again through the provider, with no password.
 * The person re-links at the next SSO sign-in (the account's password, and its code with
 * two-factor sign-in).
 */
import type { DashboardDeps } from "../deps.ts";
import type { UserRecord } from "../../state/account_records.ts";
import { auditAccount } from "../audit.ts";

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
