/**
 * The relying party: every OpenID Connect exchange goes through `openid-client` (an
 * OpenID-certified library): discovery, the authorization URL with PKCE (S256), `state` and
 * `nonce`, the code exchange, and the ID token's checks — signature against the issuer's JWKS,
 * `iss`, `aud`, `exp`/`iat`, `nonce`. This file only feeds it the provider's settings and turns
 * its failures into refusals a person can read.
 *
 * The callback reads discovery (and with it the JWKS) afresh rather than from a cache: a
 * sign-in is rare next to its extra requests, and a key the provider rotates in — or withdraws —
 * takes effect at the very next sign-in, with no restart and no stale cache. Only the start of a
 * sign-in, which needs nothing but the authorization endpoint and which anyone may request, reuses
 * a discovery up to a minute old, so that a flood of starts does not become a flood of requests
 * to the provider.
 */
import * as oidc from "openid-client";
import { GatewayError } from "../../errors.ts";
import type { SsoProviderRecord } from "../../state/sso_records.ts";

/** Seconds each request to the provider may take. */
const PROVIDER_TIMEOUT_S = 10;
/** How long the start of a sign-in may reuse a provider's discovery. */
const START_DISCOVERY_MS = 60_000;

const startDiscoveries = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

export type IdTokenClaims = Record<string, unknown> & { iss: string; sub: string };

/** The checks a callback must pass, saved when the sign-in started. */
export interface FlowChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export const ssoRefused = (message: string) =>
  new GatewayError(401, "sso_refused", message, { type: "invalid_request_error" });

const providerUnreachable = (provider: SsoProviderRecord, why: string) =>
  new GatewayError(
    502,
    "sso_provider_unreachable",
    `The identity provider ${provider.name} did not answer as expected (${why}); try again later.`,
    { type: "upstream_error" },
  );

/** Plain HTTP to the provider only on a loopback address (a provider on the same host). */
export function isLoopbackUrl(url: URL): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

/** The variable's value, or a 503 naming it (the operator must set it). */
function clientSecret(provider: SsoProviderRecord, secret: (name: string) => string | undefined) {
  const value = secret(provider.client_secret_env);
  if (!value) {
    throw new GatewayError(
      503,
      "sso_not_configured",
      `Single sign-on with ${provider.name} is not configured: the variable ${provider.client_secret_env} holding its client secret is not set.`,
      { type: "server_error" },
    );
  }
  return value;
}

async function discover(
  provider: SsoProviderRecord,
  secret: (name: string) => string | undefined,
): Promise<oidc.Configuration> {
  const issuer = new URL(provider.issuer);
  const client = clientSecret(provider, secret);
  try {
    return await oidc.discovery(
      issuer,
      provider.client_id,
      { client_secret: client },
      oidc.ClientSecretBasic(client),
      {
        timeout: PROVIDER_TIMEOUT_S,
        execute: [
          ...(isLoopbackUrl(issuer) ? [oidc.allowInsecureRequests] : []),
          oidc.enableNonRepudiationChecks,
        ],
      },
    );
  } catch (error) {
    throw providerUnreachable(provider, reason(error));
  }
}

/** Where to send the browser to sign in: PKCE S256, `state`, `nonce`, the configured scopes. */
export async function authorizationUrl(
  provider: SsoProviderRecord,
  secret: (name: string) => string | undefined,
  checks: FlowChecks,
  options: { forceLogin?: boolean } = {},
): Promise<URL> {
  const key = JSON.stringify([provider.issuer, provider.client_id]);
  let cached = startDiscoveries.get(key);
  if (!cached || Date.now() - cached.at >= START_DISCOVERY_MS) {
    cached = { at: Date.now(), config: discover(provider, secret) };
    startDiscoveries.set(key, cached);
    // A failed discovery is not kept: the next start tries again.
    cached.config.catch(() => startDiscoveries.delete(key));
  }
  const config = await cached.config;
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: provider.redirect_url,
    scope: provider.scopes.join(" "),
    response_type: "code",
    state: checks.state,
    nonce: checks.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: "S256",
    ...(options.forceLogin ? { prompt: "login" } : {}),
  });
}

/** The fresh secrets of one authorization request. */
export function newFlowChecks(): FlowChecks {
  return {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier: oidc.randomPKCECodeVerifier(),
  };
}

/**
 * Completes the callback: the authorization response's `state` and `iss`, the code exchange
 * (with the PKCE verifier) and every ID-token check. Returns the ID token's claims; the tokens
 * themselves go no further than this function.
 */
export async function completeSignIn(
  provider: SsoProviderRecord,
  secret: (name: string) => string | undefined,
  query: URLSearchParams,
  checks: FlowChecks,
): Promise<IdTokenClaims> {
  const error = query.get("error");
  if (error) {
    const description = query.get("error_description");
    throw ssoRefused(
      `${provider.name} refused the sign-in: ${error}${description ? ` (${description})` : ""}.`,
    );
  }
  const config = await discover(provider, secret);
  // The URL the provider redirected to is the configured one, whatever proxy sits in between.
  const current = new URL(provider.redirect_url);
  for (const [name, value] of query) current.searchParams.append(name, value);
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw ssoRefused(`${provider.name} returned no ID token.`);
    return claims as IdTokenClaims;
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    if (isNetworkFailure(error)) throw providerUnreachable(provider, reason(error));
    throw ssoRefused(
      `The answer from ${provider.name} did not pass verification: ${
        reason(error)
      }. Nothing was changed; start the sign-in again.`,
    );
  }
}

/** The provider's RP-initiated logout URL, when it has an end-session endpoint. */
export async function endSessionUrl(
  provider: SsoProviderRecord,
  secret: (name: string) => string | undefined,
  returnTo: string,
): Promise<URL | undefined> {
  const config = await discover(provider, secret);
  if (!config.serverMetadata().end_session_endpoint) return undefined;
  return oidc.buildEndSessionUrl(config, {
    client_id: provider.client_id,
    post_logout_redirect_uri: returnTo,
  });
}

function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError ||
    (error instanceof Error && error.name === "TimeoutError") ||
    (error instanceof Error && error.cause instanceof Error && error.cause.name === "TimeoutError");
}

/** The library's message and its cause's (claim names and checks, never token contents). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof oidc.ResponseBodyError) {
    const { error: code, error_description: description } = error;
    return `${code}${description ? ` (${description})` : ""}`;
  }
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  const text = cause && cause !== error.message ? `${error.message}: ${cause}` : error.message;
  return text.replace(/\.$/, "");
}
