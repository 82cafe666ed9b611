/**
 * What single sign-on (OpenID Connect) stores: the identity providers the operator configured,
 * each organization's binding to one of them with its role rules, the identities linked to
 * users, the memberships SSO manages, and short-lived sign-in flows. Never a client secret
 * (only the name of the variable holding it), never a token.
 */
import type { Role } from "./account_records.ts";

export interface SsoProviderRecord {
  /** Slug in URLs and CLI flags: lower-case letters, digits and '-'. */
  id: string;
  /** Shown on the sign-in button ("Sign in with …"). */
  name: string;
  /** The issuer identifier; discovery reads `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  client_id: string;
  /** The environment variable holding the client secret (the secret is never stored). */
  client_secret_env: string;
  /** Scopes asked for; always includes `openid`. */
  scopes: string[];
  /** The one redirect URL sent to the provider (`<dashboard origin>/sso/callback`). */
  redirect_url: string;
  /** The ID-token claim listing the user's groups. */
  groups_claim: string;
  /** The ID-token claim that must be `true` before the e-mail is trusted. */
  email_verified_claim: string;
  created: string;
}

/** One mapping rule: an e-mail domain or a group value, and the role it gives. */
export interface SsoRoleRule {
  match: string;
  role: Role;
}

/** An organization's identity provider and the rules that map its users to roles. */
export interface SsoBindingRecord {
  org: string;
  provider: string;
  /** Verified e-mail domains (lower-cased, exact) → role. */
  domains: SsoRoleRule[];
  /** Values of the provider's groups claim (exact) → role. */
  groups: SsoRoleRule[];
  /** Members sign in through the provider only; owners keep their password (break-glass). */
  require_sso: boolean;
  updated: string;
}

/** A provider account linked to a Sovra user, by the issuer and the ID token's `sub`. */
export interface SsoIdentityRecord {
  issuer: string;
  subject: string;
  /** The provider id it was linked through (for the user's page and the audit). */
  provider: string;
  user: string;
  created: string;
  last_sign_in: string;
}

/** A membership SSO created: its role follows the provider's claims at every sign-in. */
export interface SsoManagedMembership {
  org: string;
  user: string;
  provider: string;
}

/** What a sign-in keeps of the provider's answer, for a flow that continues later. */
export interface SsoClaimsSummary {
  email: string | null;
  email_verified: boolean;
  groups: string[];
}

/**
 * A sign-in in progress, under the SHA-256 of its one-time secret: the `state` of an
 * authorization request (with its PKCE verifier and nonce), or the token of a pending link
 * to an existing password account. Taken once; a replay finds nothing.
 */
export type SsoFlowRecord =
  & { hash: string; provider: string; created: string; expires: string }
  & (
    | {
      kind: "authorize";
      /** `sign_in`, or `test` (show the claims, change nothing). */
      purpose: "sign_in" | "test";
      code_verifier: string;
      nonce: string;
      /** Where to go after signing in (a local path). */
      next: string;
      /** `test`: the signed-in user who started it, and the organization whose rules apply. */
      user: string | null;
      org: string | null;
    }
    | {
      kind: "link";
      issuer: string;
      subject: string;
      /** The existing account whose password the link needs. */
      user: string;
      claims: SsoClaimsSummary;
      next: string;
    }
  );
