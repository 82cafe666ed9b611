/** The identity provider's own sign-out (RP-initiated logout), offered after a Sovra sign-out. */
import type { DashboardDeps, Viewer } from "../deps.ts";
import { errorMessage } from "../../log.ts";
import { endSessionUrl } from "./oidc.ts";

/**
 * The provider's sign-out URL for a session signed in through it (back to the sign-in page
 * afterwards), or undefined for a password session or a provider without an end-session endpoint.
 */
export async function endSessionUrlFor(
  deps: DashboardDeps,
  viewer: Viewer | undefined,
): Promise<string | undefined> {
  if (!viewer?.ssoProvider) return undefined;
  const provider = await deps.sso.getProvider(viewer.ssoProvider);
  if (!provider) return undefined;
  try {
    const returnTo = new URL("/login", provider.redirect_url).href;
    return (await endSessionUrl(provider, deps.config.secret, returnTo))?.href;
  } catch (error) {
    deps.log.warn("sso end-session endpoint unavailable", {
      provider: provider.id,
      reason: errorMessage(error),
    });
    return undefined;
  }
}
