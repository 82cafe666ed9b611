/**
 * From an ID token's claims to Sovra roles, pure. The e-mail counts only when the provider's
 * verification claim is `true`; a domain rule matches the verified e-mail's domain exactly
 * (no subdomains); a group rule matches one value of the groups claim exactly. Several
 * matching rules give the highest of their roles.
 */
import type { Role } from "../../state/account_records.ts";
import type {
  SsoBindingRecord,
  SsoClaimsSummary,
  SsoProviderRecord,
} from "../../state/sso_records.ts";

const RANK: Record<Role, number> = { viewer: 1, admin: 2, owner: 3 };

/** What Sovra reads from the claims, with the provider's claim names applied. */
export function summariseClaims(
  provider: SsoProviderRecord,
  claims: Record<string, unknown>,
): SsoClaimsSummary {
  const rawEmail = claims.email;
  const email = typeof rawEmail === "string" && rawEmail.includes("@")
    ? rawEmail.trim().toLowerCase()
    : null;
  const flag = claims[provider.email_verified_claim];
  const rawGroups = claims[provider.groups_claim];
  const groups = Array.isArray(rawGroups)
    ? rawGroups.filter((g): g is string => typeof g === "string")
    : typeof rawGroups === "string"
    ? [rawGroups]
    : [];
  return {
    email,
    // Some providers send the flag as the string "true"; anything else is unverified.
    email_verified: email !== null && (flag === true || flag === "true"),
    groups,
  };
}

export interface RoleMatch {
  role: Role;
  /** The rules that matched, e.g. `domain example.eu → viewer`. */
  because: string[];
}

/** The role the binding's rules give these claims, or null when none matches. */
export function roleFor(binding: SsoBindingRecord, claims: SsoClaimsSummary): RoleMatch | null {
  const because: string[] = [];
  let role: Role | null = null;
  const take = (r: Role, why: string) => {
    because.push(why);
    if (role === null || RANK[r] > RANK[role]) role = r;
  };
  const domain = claims.email_verified ? claims.email!.split("@").pop()! : null;
  for (const rule of binding.domains) {
    if (domain !== null && rule.match === domain) {
      take(rule.role, `domain ${rule.match} → ${rule.role}`);
    }
  }
  for (const rule of binding.groups) {
    if (claims.groups.includes(rule.match)) take(rule.role, `group ${rule.match} → ${rule.role}`);
  }
  return role === null ? null : { role, because };
}

export function higherRole(a: Role, b: Role): boolean {
  return RANK[a] > RANK[b];
}
