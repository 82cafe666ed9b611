/**
 * Single sign-on in `admin export` / `admin import` (the line format of `transfer.ts`):
 * providers, bindings, identities and the memberships SSO manages, with their fields in one
 * order on both backends (jsonb reorders keys). Sign-in flows in progress are not moved (they
 * live ten minutes).
 */
import { z } from "zod";
import type {
  SsoBindingRecord,
  SsoIdentityRecord,
  SsoManagedMembership,
  SsoProviderRecord,
} from "./sso_records.ts";

const role = z.enum(["owner", "admin", "viewer"]);
const rules = z.array(z.object({ match: z.string().min(1), role }));

export const SsoProviderLine = z.object({
  type: z.literal("sso_provider"),
  id: z.string().min(1),
  name: z.string(),
  issuer: z.string().min(1),
  client_id: z.string().min(1),
  client_secret_env: z.string().min(1),
  scopes: z.array(z.string()),
  redirect_url: z.string().min(1),
  groups_claim: z.string().min(1),
  email_verified_claim: z.string().min(1),
  created: z.string(),
});

export const SsoBindingLine = z.object({
  type: z.literal("sso_binding"),
  org: z.string().min(1),
  provider: z.string().min(1),
  domains: rules,
  groups: rules,
  require_sso: z.boolean(),
  updated: z.string(),
});

export const SsoIdentityLine = z.object({
  type: z.literal("sso_identity"),
  issuer: z.string().min(1),
  subject: z.string().min(1),
  provider: z.string().min(1),
  user: z.string().min(1),
  created: z.string(),
  last_sign_in: z.string(),
});

export const SsoManagedLine = z.object({
  type: z.literal("sso_managed"),
  org: z.string().min(1),
  user: z.string().min(1),
  provider: z.string().min(1),
});

export const ssoProviderLine = (p: SsoProviderRecord): z.infer<typeof SsoProviderLine> => ({
  type: "sso_provider",
  id: p.id,
  name: p.name,
  issuer: p.issuer,
  client_id: p.client_id,
  client_secret_env: p.client_secret_env,
  scopes: p.scopes,
  redirect_url: p.redirect_url,
  groups_claim: p.groups_claim,
  email_verified_claim: p.email_verified_claim,
  created: p.created,
});

export const ssoBindingLine = (b: SsoBindingRecord): z.infer<typeof SsoBindingLine> => ({
  type: "sso_binding",
  org: b.org,
  provider: b.provider,
  domains: b.domains.map((r) => ({ match: r.match, role: r.role })),
  groups: b.groups.map((r) => ({ match: r.match, role: r.role })),
  require_sso: b.require_sso,
  updated: b.updated,
});

export const ssoIdentityLine = (i: SsoIdentityRecord): z.infer<typeof SsoIdentityLine> => ({
  type: "sso_identity",
  issuer: i.issuer,
  subject: i.subject,
  provider: i.provider,
  user: i.user,
  created: i.created,
  last_sign_in: i.last_sign_in,
});

export const ssoManagedLine = (m: SsoManagedMembership): z.infer<typeof SsoManagedLine> => ({
  type: "sso_managed",
  org: m.org,
  user: m.user,
  provider: m.provider,
});
