/**
 * What a verified ID token leads to. The identity (issuer + `sub`) finds its user; a new one
 * gets an account just in time only when a rule of an organization bound to the provider
 * matches, and only with a verified e-mail. An e-mail that belongs to an existing password
 * account is linked only after that account's password is given (a provider that lets people
 * choose any e-mail cannot take an account over). At every sign-in the memberships SSO
 * created follow the rules: a new role, or removal when no rule matches any more; a
 * membership an owner gave by hand is left as it is. Refusals create nothing.
 */
import type { DashboardDeps } from "../deps.ts";
import type { Role, UserRecord } from "../../state/account_records.ts";
import type {
  SsoBindingRecord,
  SsoClaimsSummary,
  SsoProviderRecord,
} from "../../state/sso_records.ts";
import { randomId } from "../../util/ids.ts";
import type { GatewayError } from "../../errors.ts";
import { ssoForbidden } from "../errors.ts";
import { audit } from "../audit.ts";
import { hashToken, newSecretToken } from "../secret_tokens.ts";
import { roleFor, summariseClaims } from "./role_mapping.ts";
import type { IdTokenClaims } from "./oidc.ts";
import { FLOW_TTL_MS } from "./flows.ts";

export type SignInOutcome =
  | { kind: "signed_in"; user: UserRecord }
  /** An account with this e-mail exists: its password is needed (the token of the link page). */
  | { kind: "link"; token: string; email: string };

/** Signs the identity in, creating the account just in time when a rule matches. */
export async function signInWithClaims(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  claims: IdTokenClaims,
  next: string,
): Promise<SignInOutcome> {
  const summary = summariseClaims(provider, claims);
  let user = await linkedUser(deps, claims);
  if (!user) {
    const email = await refuseUnusableEmail(deps, provider, summary);
    const existing = await deps.accounts.findUserByEmail(email);
    if (existing) return await offerLink(deps, provider, claims, summary, existing, next);
    user = await createJustInTime(deps, provider, claims, summary, email);
  }
  return { kind: "signed_in", user: await finishSignIn(deps, provider, claims, summary, user) };
}

/** The user the identity is linked to (a link to a deleted user is dropped). */
async function linkedUser(deps: DashboardDeps, claims: IdTokenClaims) {
  const identity = await deps.sso.getIdentity(claims.iss, claims.sub);
  if (!identity) return undefined;
  const user = await deps.accounts.getUser(identity.user);
  if (!user) await deps.sso.deleteIdentity(claims.iss, claims.sub);
  return user;
}

async function refuse(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  who: string,
  reason: string,
  error: GatewayError,
): Promise<never> {
  await audit(deps, null, who, "sso.refused", provider.id, { reason });
  throw error;
}

async function refuseUnusableEmail(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  summary: SsoClaimsSummary,
): Promise<string> {
  if (!summary.email) {
    return await refuse(
      deps,
      provider,
      "(no e-mail)",
      "no_email",
      ssoForbidden(
        "sso_email_missing",
        `${provider.name} sent no e-mail address, so Sovra cannot create or find your account. Ask your administrator to include the 'email' claim.`,
      ),
    );
  }
  if (!summary.email_verified) {
    return await refuse(
      deps,
      provider,
      summary.email,
      "email_unverified",
      ssoForbidden(
        "sso_email_unverified",
        `${provider.name} did not mark your e-mail address ${summary.email} as verified ('${provider.email_verified_claim}' is not true), so Sovra does not trust it. Verify it at your identity provider, or ask your administrator.`,
      ),
    );
  }
  return summary.email;
}

async function offerLink(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  claims: IdTokenClaims,
  summary: SsoClaimsSummary,
  existing: UserRecord,
  next: string,
): Promise<SignInOutcome> {
  if (existing.password_hash === null) {
    return await refuse(
      deps,
      provider,
      existing.email,
      "link_without_password",
      ssoForbidden(
        "sso_link_unavailable",
        `A Sovra account for ${existing.email} exists but has no password yet. Set its password from your invitation link first, then sign in with ${provider.name} again to link the two.`,
      ),
    );
  }
  const token = newSecretToken();
  const now = deps.now();
  await deps.sso.createFlow({
    kind: "link",
    hash: hashToken(token),
    provider: provider.id,
    created: new Date(now).toISOString(),
    expires: new Date(now + FLOW_TTL_MS).toISOString(),
    issuer: claims.iss,
    subject: claims.sub,
    user: existing.id,
    claims: summary,
    next,
  });
  return { kind: "link", token, email: existing.email };
}

/** The bound organizations whose rules match, with the role each gives. */
async function matchingBindings(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  summary: SsoClaimsSummary,
) {
  const out = [];
  for (const binding of await deps.sso.listBindingsOfProvider(provider.id)) {
    const match = roleFor(binding, summary);
    out.push({ binding, match });
  }
  return out;
}

async function createJustInTime(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  claims: IdTokenClaims,
  summary: SsoClaimsSummary,
  email: string,
): Promise<UserRecord> {
  const matches = (await matchingBindings(deps, provider, summary)).filter((m) => m.match);
  if (matches.length === 0) {
    return await refuse(
      deps,
      provider,
      email,
      "no_matching_rule",
      ssoForbidden(
        "sso_no_match",
        `No organization in Sovra admits ${email} through ${provider.name}: no e-mail domain or group rule matches. Nothing was created; ask an owner of your organization to add a rule for you.`,
      ),
    );
  }
  const at = new Date(deps.now()).toISOString();
  const user: UserRecord = {
    id: randomId("usr_", 12),
    email,
    password_hash: null,
    operator: false,
    created: at,
    password_changed_at: null,
  };
  if (!await deps.accounts.createUser(user)) {
    throw ssoForbidden("sso_conflict", "Your account was just created elsewhere; sign in again.");
  }
  await deps.sso.createIdentity({
    issuer: claims.iss,
    subject: claims.sub,
    provider: provider.id,
    user: user.id,
    created: at,
    last_sign_in: at,
  });
  await audit(deps, null, email, "user.created", email, { via: provider.id });
  return user;
}

/**
 * Brings the SSO memberships in step with the claims, then refuses a user left with no
 * organization (nothing else is created), or returns the user to start a session for.
 */
async function finishSignIn(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  claims: IdTokenClaims,
  summary: SsoClaimsSummary,
  user: UserRecord,
): Promise<UserRecord> {
  for (const { binding, match } of await matchingBindings(deps, provider, summary)) {
    await syncMembership(deps, provider, binding, user, match?.role ?? null, match?.because);
  }
  const memberships = await deps.accounts.listMembershipsOfUser(user.id);
  if (memberships.length === 0 && !user.operator) {
    await refuse(
      deps,
      provider,
      user.email,
      "no_matching_rule",
      ssoForbidden(
        "sso_no_match",
        `${user.email} is no longer a member of any organization in Sovra through ${provider.name}: no e-mail domain or group rule matches any more. Ask an owner of your organization.`,
      ),
    );
  }
  await deps.sso.touchIdentity(claims.iss, claims.sub, new Date(deps.now()).toISOString());
  for (const m of memberships) {
    const binding = await deps.sso.getBinding(m.org);
    if (binding?.provider === provider.id) {
      await audit(deps, m.org, user.email, "sso.signed_in", user.email, {
        provider: provider.id,
        role: m.role,
      });
    }
  }
  return user;
}

async function syncMembership(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  binding: SsoBindingRecord,
  user: UserRecord,
  role: Role | null,
  because: string[] | undefined,
): Promise<void> {
  const org = binding.org;
  const current = await deps.accounts.getMembership(org, user.id);
  const managed = await deps.sso.getManaged(org, user.id);
  const rules = because?.join(", ") ?? "";
  if (!current) {
    if (role === null) return;
    const added = await deps.accounts.addMembership({
      org,
      user: user.id,
      role,
      created: new Date(deps.now()).toISOString(),
    });
    if (!added) return;
    await deps.sso.markManaged({ org, user: user.id, provider: provider.id });
    await audit(deps, org, user.email, "member.joined", user.email, {
      role,
      provider: provider.id,
      rules,
    });
    return;
  }
  // A membership an owner gave by hand is the owner's to change.
  if (!managed || current.role === role) return;
  const change = await deps.accounts.changeMembership(org, user.id, role);
  if (change === "last_owner") {
    await audit(deps, org, "sso", "sso.role_kept", user.email, {
      role: current.role,
      reason: "last_owner",
      provider: provider.id,
    });
    return;
  }
  if (change !== "changed") return;
  if (role === null) {
    await deps.sso.unmarkManaged(org, user.id);
    await audit(deps, org, "sso", "member.removed", user.email, {
      previous_role: current.role,
      provider: provider.id,
      reason: "no rule matches",
    });
  } else {
    await audit(deps, org, "sso", "member.role_changed", user.email, {
      from: current.role,
      to: role,
      provider: provider.id,
      rules,
    });
  }
}

/** Completes a pending link once the existing account's password was checked. */
export async function completeLink(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  link: { issuer: string; subject: string; user: string; claims: SsoClaimsSummary },
): Promise<UserRecord> {
  const user = await deps.accounts.getUser(link.user);
  if (!user) throw ssoForbidden("sso_conflict", "The account to link is gone; sign in again.");
  const at = new Date(deps.now()).toISOString();
  const linked = await deps.sso.createIdentity({
    issuer: link.issuer,
    subject: link.subject,
    provider: provider.id,
    user: user.id,
    created: at,
    last_sign_in: at,
  });
  if (!linked) {
    throw ssoForbidden("sso_conflict", "This identity was linked meanwhile; sign in again.");
  }
  await audit(deps, null, user.email, "sso.linked", user.email, { provider: provider.id });
  const claims = { iss: link.issuer, sub: link.subject } as IdTokenClaims;
  return await finishSignIn(deps, provider, claims, link.claims, user);
}

/** What a test sign-in shows: the claims received and what the organization's rules make of them. */
export async function describeTest(
  deps: DashboardDeps,
  provider: SsoProviderRecord,
  claims: IdTokenClaims,
  org: string | null,
) {
  const summary = summariseClaims(provider, claims);
  const binding = org ? await deps.sso.getBinding(org) : undefined;
  const rules = binding?.provider === provider.id ? binding : undefined;
  const identity = await deps.sso.getIdentity(claims.iss, claims.sub);
  return {
    provider: provider.id,
    claims: Object.fromEntries(Object.entries(claims).sort(([a], [b]) => a.localeCompare(b))),
    summary,
    org,
    bound: rules !== undefined,
    match: rules ? roleFor(rules, summary) : null,
    linked_user: identity ? (await deps.accounts.getUser(identity.user))?.email ?? null : null,
  };
}
