/**
 * Single sign-on settings, shared by the admin CLI, the JSON API and the pages: the providers
 * an operator configures and the binding (provider + role rules + "require SSO") an owner
 * sets for an organization. Every change is audited; a client secret is never seen here, only
 * the name of the variable that holds it.
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { requireOperator } from "./operator.ts";
import { type Role, ROLES } from "../../state/account_records.ts";
import type { SsoBindingRecord, SsoProviderRecord, SsoRoleRule } from "../../state/sso_records.ts";
import { audit } from "../audit.ts";
import { badInput, conflict, notFound } from "../errors.ts";
import { isLoopbackUrl } from "../sso/oidc.ts";

export type SsoDeps = Pick<DashboardDeps, "sso" | "control" | "now">;

/** The path every provider redirects back to (the dashboard's callback route). */
export const CALLBACK_PATH = "/sso/callback";
export const MAX_RULES = 100;

export interface ProviderInput {
  id?: string | undefined;
  name?: string | undefined;
  issuer?: string | undefined;
  client_id?: string | undefined;
  client_secret_env?: string | undefined;
  /** Space- or comma-separated, or a list; default `openid email profile`. */
  scopes?: string | string[] | undefined;
  redirect_url?: string | undefined;
  groups_claim?: string | undefined;
  email_verified_claim?: string | undefined;
}

function text(raw: unknown, name: string, max: number): string {
  const value = typeof raw === "string" ? raw.trim() : "";
  if (value === "") throw badInput(`Give '${name}'.`, name);
  if (value.length > max) throw badInput(`'${name}' must be at most ${max} characters.`, name);
  return value;
}

function webUrl(raw: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badInput(`'${name}' must be an absolute URL.`, name);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackUrl(url))) {
    throw badInput(`'${name}' must use https (plain http only on 127.0.0.1 or localhost).`, name);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw badInput(`'${name}' must have no query, fragment or credentials.`, name);
  }
  return url;
}

function claimName(raw: unknown, name: string, fallback: string): string {
  if (raw === undefined || raw === "") return fallback;
  const value = text(raw, name, 100);
  if (!/^[\w.:/-]+$/.test(value)) {
    throw badInput(`'${name}' must be a claim name (letters, digits, _ . : / -).`, name);
  }
  return value;
}

/** The provider record for valid input, or a 400 naming the field. */
export function providerFromInput(input: ProviderInput, created: string): SsoProviderRecord {
  const id = text(input.id, "id", 40);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) {
    throw badInput("'id' must be lower-case letters, digits and '-' (e.g. keycloak-acme).", "id");
  }
  const issuer = text(input.issuer, "issuer", 500);
  webUrl(issuer, "issuer");
  const secretEnv = text(input.client_secret_env, "client_secret_env", 100);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) {
    throw badInput(
      "'client_secret_env' must be an environment variable name.",
      "client_secret_env",
    );
  }
  const redirect = webUrl(text(input.redirect_url, "redirect_url", 500), "redirect_url");
  if (redirect.pathname !== CALLBACK_PATH) {
    throw badInput(
      `'redirect_url' must be the dashboard's ${CALLBACK_PATH} (e.g. https://dashboard.example.eu${CALLBACK_PATH}).`,
      "redirect_url",
    );
  }
  const rawScopes = input.scopes ?? "openid email profile";
  const scopes = (Array.isArray(rawScopes) ? rawScopes : rawScopes.split(/[\s,]+/))
    .map((s) => s.trim()).filter((s) => s !== "");
  if (!scopes.includes("openid")) scopes.unshift("openid");
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)) || scopes.length > 30) {
    throw badInput("'scopes' must be at most 30 OAuth scope names.", "scopes");
  }
  return {
    id,
    name: input.name?.trim() ? text(input.name, "name", 80) : id,
    issuer,
    client_id: text(input.client_id, "client_id", 200),
    client_secret_env: secretEnv,
    scopes: [...new Set(scopes)],
    redirect_url: redirect.href,
    groups_claim: claimName(input.groups_claim, "groups_claim", "groups"),
    email_verified_claim: claimName(
      input.email_verified_claim,
      "email_verified_claim",
      "email_verified",
    ),
    created,
  };
}

/** What the operator sees of a provider: the record and whether its secret variable is set. */
export function providerView(
  provider: SsoProviderRecord,
  secret: (name: string) => string | undefined,
) {
  return { ...provider, client_secret_set: Boolean(secret(provider.client_secret_env)) };
}

export async function addProvider(
  deps: SsoDeps,
  input: ProviderInput,
  actor: string,
): Promise<SsoProviderRecord> {
  const provider = providerFromInput(input, new Date(deps.now()).toISOString());
  if (!await deps.sso.createProvider(provider)) {
    throw conflict("sso_provider_exists", `A provider with the id '${provider.id}' exists.`);
  }
  await audit(deps, null, actor, "sso.provider_added", provider.id, {
    issuer: provider.issuer,
    client_id: provider.client_id,
    client_secret_env: provider.client_secret_env,
    redirect_url: provider.redirect_url,
  });
  return provider;
}

export async function removeProvider(deps: SsoDeps, id: string, actor: string): Promise<void> {
  const result = await deps.sso.removeProvider(id);
  if (result === "not_found") throw notFound("Identity provider");
  if (result === "bound") {
    const orgs = (await deps.sso.listBindingsOfProvider(id)).map((b) => b.org);
    throw conflict(
      "sso_provider_bound",
      `Organizations still sign in with '${id}' (${orgs.join(", ")}); unbind it there first.`,
    );
  }
  await audit(deps, null, actor, "sso.provider_removed", id);
}

/** Rules from lines or commas of `match = role` (the last '=' splits: group names may hold one). */
export function parseRules(raw: string | string[] | undefined, kind: "domain" | "group") {
  const items = (Array.isArray(raw) ? raw : (raw ?? "").split(/[\n,]/))
    .map((s) => s.trim()).filter((s) => s !== "");
  const param = kind === "domain" ? "domains" : "groups";
  if (items.length > MAX_RULES) throw badInput(`At most ${MAX_RULES} ${kind} rules.`, param);
  return items.map((item): SsoRoleRule => {
    const at = item.lastIndexOf("=");
    const match = at < 0 ? "" : item.slice(0, at).trim();
    const role = at < 0 ? "" : item.slice(at + 1).trim();
    if (!match || !(ROLES as readonly string[]).includes(role)) {
      throw badInput(
        `Each ${kind} rule is '${
          kind === "domain" ? "example.eu" : "group"
        } = owner|admin|viewer', got '${item}'.`,
        param,
      );
    }
    if (kind === "domain") {
      const domain = match.toLowerCase().replace(/^@/, "");
      if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domain)) {
        throw badInput(`'${match}' is not an e-mail domain.`, param);
      }
      return { match: domain, role: role as Role };
    }
    if (match.length > 300) throw badInput("A group is at most 300 characters.", param);
    return { match, role: role as Role };
  });
}

export interface BindingInput {
  provider?: string | undefined;
  domains?: string | string[] | undefined;
  groups?: string | string[] | undefined;
  require_sso?: boolean | undefined;
}

export function rulesText(rules: SsoRoleRule[]): string {
  return rules.map((r) => `${r.match} = ${r.role}`).join("\n");
}

/** Binds the organization to a provider with its rules (replacing any earlier binding). */
export async function bindProvider(
  deps: SsoDeps,
  org: string,
  input: BindingInput,
  actor: string,
): Promise<SsoBindingRecord> {
  const providerId = text(input.provider, "provider", 40);
  const binding: SsoBindingRecord = {
    org,
    provider: providerId,
    domains: parseRules(input.domains, "domain"),
    groups: parseRules(input.groups, "group"),
    require_sso: input.require_sso === true,
    updated: new Date(deps.now()).toISOString(),
  };
  const before = await deps.sso.getBinding(org);
  if (!await deps.sso.setBinding(binding)) {
    throw badInput(`There is no identity provider '${providerId}'.`, "provider");
  }
  await audit(deps, org, actor, "sso.bound", providerId, {
    domains: binding.domains.map((r) => `${r.match}=${r.role}`).join(", "),
    groups: binding.groups.map((r) => `${r.match}=${r.role}`).join(", "),
    require_sso: binding.require_sso,
    previous_provider: before?.provider ?? null,
  });
  return binding;
}

export async function unbindProvider(deps: SsoDeps, org: string, actor: string): Promise<void> {
  const before = await deps.sso.getBinding(org);
  if (!before || !await deps.sso.deleteBinding(org)) {
    throw notFound("Single sign-on binding");
  }
  await audit(deps, org, actor, "sso.unbound", before.provider);
}

// The dashboard's entry points: the same functions behind the viewer's permission checks.

export async function operatorProviders(deps: DashboardDeps, viewer: Viewer) {
  requireOperator(viewer);
  return (await deps.sso.listProviders()).map((p) => providerView(p, deps.config.secret));
}

export async function operatorAddProvider(
  deps: DashboardDeps,
  viewer: Viewer,
  input: ProviderInput,
) {
  requireOperator(viewer);
  return providerView(await addProvider(deps, input, viewer.user.email), deps.config.secret);
}

export async function operatorRemoveProvider(deps: DashboardDeps, viewer: Viewer, id: string) {
  requireOperator(viewer);
  await removeProvider(deps, id, viewer.user.email);
}

/** The organization's binding and the providers an owner may choose from (ids and names). */
export async function orgSsoView(deps: DashboardDeps, access: OrgAccess) {
  requirePermission(access, "manage_sso", "single sign-on settings");
  const providers = (await deps.sso.listProviders()).map((p) => ({ id: p.id, name: p.name }));
  return { binding: (await deps.sso.getBinding(access.org.id)) ?? null, providers };
}

export async function setOrgBinding(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  input: BindingInput,
) {
  requirePermission(access, "manage_sso", "single sign-on settings");
  return await bindProvider(deps, access.org.id, input, viewer.user.email);
}

export async function removeOrgBinding(deps: DashboardDeps, access: OrgAccess, viewer: Viewer) {
  requirePermission(access, "manage_sso", "single sign-on settings");
  await unbindProvider(deps, access.org.id, viewer.user.email);
}
