/**
 * A sign-in through an identity provider, from the redirect to the callback. Its `state`,
 * PKCE verifier and `nonce` are kept in the store (under the SHA-256 of the state, taken once:
 * a replayed callback finds nothing) and the state also in a cookie of this browser, so a
 * callback started in another browser (login CSRF) fails too. The cookie is SameSite=Lax: the
 * provider's redirect back is a cross-site navigation, which a Strict cookie would miss.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { DashboardDeps } from "../deps.ts";
import type { SsoFlowRecord, SsoProviderRecord } from "../../state/sso_records.ts";
import { hashToken } from "../secret_tokens.ts";
import { dashboardCookieName } from "../sessions.ts";
import { authorizationUrl, type FlowChecks, newFlowChecks, ssoRefused } from "./oidc.ts";

/** Minutes a person has to sign in at the provider (or to enter a password to link). */
export const FLOW_TTL_MS = 10 * 60_000;

export type AuthorizeFlow = Extract<SsoFlowRecord, { kind: "authorize" }>;

const cookieName = (deps: DashboardDeps) => dashboardCookieName(deps, "sovra_sso");

/** Saves the flow, sets the browser's cookie and returns the provider's authorization URL. */
export async function startAuthorization(
  deps: DashboardDeps,
  c: Context,
  provider: SsoProviderRecord,
  flow: Pick<AuthorizeFlow, "purpose" | "next" | "user" | "org">,
): Promise<URL> {
  const checks = newFlowChecks();
  const url = await authorizationUrl(provider, deps.config.secret, checks, {
    forceLogin: flow.purpose === "test",
  });
  const now = deps.now();
  await deps.sso.createFlow({
    kind: "authorize",
    hash: hashToken(checks.state),
    provider: provider.id,
    created: new Date(now).toISOString(),
    expires: new Date(now + FLOW_TTL_MS).toISOString(),
    code_verifier: checks.codeVerifier,
    nonce: checks.nonce,
    ...flow,
  });
  setCookie(c, cookieName(deps), checks.state, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: deps.config.dashboardSecureCookie,
    maxAge: FLOW_TTL_MS / 1000,
  });
  return url;
}

/**
 * The flow this callback belongs to, used up: its state must be this browser's and still
 * unused and unexpired. Refusals say what to do next.
 */
export async function takeAuthorization(
  deps: DashboardDeps,
  c: Context,
): Promise<{ flow: AuthorizeFlow; checks: FlowChecks }> {
  const state = c.req.query("state") ?? "";
  const mine = getCookie(c, cookieName(deps));
  deleteCookie(c, cookieName(deps), {
    path: "/",
    secure: deps.config.dashboardSecureCookie,
  });
  if (!state || state.length > 200) {
    throw ssoRefused("The identity provider's answer has no valid state; start the sign-in again.");
  }
  if (mine !== state) {
    throw ssoRefused(
      "This sign-in was not started in this browser (or its cookie is gone); start the sign-in again.",
    );
  }
  const flow = await deps.sso.takeFlow(hashToken(state));
  if (!flow || flow.kind !== "authorize") {
    throw ssoRefused(
      "This sign-in answer was already used or is unknown; start the sign-in again.",
    );
  }
  if (Date.parse(flow.expires) <= deps.now()) {
    throw ssoRefused("This sign-in took too long and expired; start the sign-in again.");
  }
  return { flow, checks: { state, nonce: flow.nonce, codeVerifier: flow.code_verifier } };
}
