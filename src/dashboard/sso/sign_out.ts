/** The identity provider's own sign-out (RP-initiated logout), offered after a Sovra sign-out. */
import type { DashboardDeps, Viewer } from "../deps.ts";
import type { SsoProviderRecord } from "../../state/sso_records.ts";
import { errorMessage } from "../../log.ts";
import { endSessionUrl } from "./oidc.ts";

/**
 * For a session signed in through a provider: the provider, and its sign-out URL (back to the
 * sign-in page afterwards) when it has an end-session endpoint. Undefined for a password session.
 */
export async function providerSignOut(
  deps: DashboardDeps,
  viewer: Viewer | undefined,
): Promise<{ provider: SsoProviderRecord; url: string | undefined } | undefined> {
  if (!viewer?.ssoProvider) return undefined;
  const provider = await deps.sso.getProvider(viewer.ssoProvider);
  if (!provider) return undefined;
  try {
    const returnTo = new URL("/login", provider.redirect_url).href;
    return { provider, url: (await endSessionUrl(provider, deps.config.secret, returnTo))?.href };
  } catch (error) {
    deps.log.warn("sso end-session endpoint unavailable", {
      provider: provider.id,
      reason: errorMessage(error),
    });
    return { provider, url: undefined };
  }
}
