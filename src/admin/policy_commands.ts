/**
 * `policy show` and `policy set` (operator contract, control-plane additions). `set` changes
 * only the fields given, validates every value (unknown providers and models are refused when
 * the catalog is at hand), stores the whole policy with an audit entry (actor `cli`), and
 * prints the new policy. `--key ID` applies to that key's narrowing instead: a key may only be
 * stricter than its organization (strict_only, more blocked providers, zdr_only, a smaller
 * allow-list, a stronger guardrail). Gateways pick a change up within 30 s.
 *
 * The guardrail's remote layer (organization only): `--guardrail-remote MODEL|off`,
 * `--guardrail-remote-timeout-ms N`, `--guardrail-remote-on-error open|closed`; validated by
 * `policy/guardrail_remote_setting.ts` (the same rules as the dashboard). With `--key`, a key
 * narrowing that leaves that classifier no route is kept, with `warnings` in the answer
 * (`policy/key_remote_warning.ts`; the CLI also prints each on stderr); without `--key`, the
 * warnings of every such key of the organization.
 */
import type { Store } from "../state/store.ts";
import { DEFAULT_ORG_POLICY, type KeyPolicy, type OrgPolicy } from "../state/policy_store.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { effectivePolicy } from "../policy/effective_policy.ts";
import { allowedModelIds } from "../policy/route_rules.ts";
import { applyRemoteChange, RemoteSettingError } from "../policy/guardrail_remote_setting.ts";
import { keyRemoteWarning, orgKeyRemoteWarnings } from "../policy/key_remote_warning.ts";
import { AdminError } from "./commands.ts";

export interface PolicyFlags {
  org?: string | undefined;
  key?: string | undefined;
  sovereignty?: string | undefined;
  "block-provider"?: string[] | undefined;
  "unblock-provider"?: string[] | undefined;
  "zdr-only"?: string | undefined;
  guardrail?: string | undefined;
  "guardrail-remote"?: string | undefined;
  "guardrail-remote-timeout-ms"?: string | undefined;
  "guardrail-remote-on-error"?: string | undefined;
  "allowed-models"?: string | undefined;
}

const REMOTE_FLAGS = [
  "guardrail-remote",
  "guardrail-remote-timeout-ms",
  "guardrail-remote-on-error",
] as const;

export async function runPolicyCommand(
  store: Store,
  name: string,
  flags: PolicyFlags,
  catalog: Catalog | undefined,
): Promise<Record<string, unknown>> {
  const orgId = flags.org;
  if (!orgId) throw new AdminError("Missing --org.");
  if (!await store.getOrg(orgId)) throw new AdminError(`Organization '${orgId}' does not exist.`);
  const keyId = flags.key;
  if (keyId !== undefined) {
    const key = (await store.listApiKeys(orgId)).find((k) => k.id === keyId);
    if (!key) throw new AdminError(`Key '${keyId}' is not a key of organization '${orgId}'.`);
  }
  if (name === "policy set") {
    if (keyId === undefined) {
      const current = await store.getOrgPolicy(orgId) ?? DEFAULT_ORG_POLICY;
      await store.putOrgPolicy(orgId, applyToOrg(current, flags, catalog), "cli");
    } else {
      const current = await store.getKeyPolicy(keyId) ?? {};
      await store.putKeyPolicy(orgId, keyId, applyToKey(current, flags, catalog), "cli");
    }
  }
  return await describe(store, orgId, keyId, catalog);
}

async function describe(
  store: Store,
  orgId: string,
  keyId: string | undefined,
  catalog: Catalog | undefined,
): Promise<Record<string, unknown>> {
  const org = await store.getOrgPolicy(orgId) ?? DEFAULT_ORG_POLICY;
  const key = keyId === undefined ? undefined : await store.getKeyPolicy(keyId);
  const out: Record<string, unknown> = {
    org: orgId,
    ...org,
    guardrail_remote: org.guardrail_remote ?? null,
  };
  if (keyId !== undefined) out.key = { id: keyId, ...(key ?? {}) };
  if (catalog) out.models_allowed = allowedModelIds(catalog, effectivePolicy(org, key));
  // Saved anyway (a key may only narrow): the warning says what the narrowing costs. Without
  // --key, every key of the organization whose narrowing leaves the classifier no route.
  const own = keyId === undefined ? undefined : keyRemoteWarning(catalog, org, keyId, key);
  const warnings = keyId === undefined
    ? await orgKeyRemoteWarnings(store, catalog, orgId, org)
    : own === undefined
    ? []
    : [own];
  if (warnings.length > 0) out.warnings = warnings;
  return out;
}

function applyToOrg(current: OrgPolicy, flags: PolicyFlags, catalog: Catalog | undefined) {
  const next: OrgPolicy = { ...current, blocked_providers: [...current.blocked_providers] };
  if (flags.sovereignty !== undefined) {
    next.sovereignty = oneOf(flags.sovereignty, ["any", "strict_only"] as const, "sovereignty");
  }
  next.blocked_providers = blocked(next.blocked_providers, flags, catalog);
  if (flags["zdr-only"] !== undefined) next.zdr_only = bool(flags["zdr-only"], "zdr-only");
  if (flags.guardrail !== undefined) {
    next.guardrail = oneOf(flags.guardrail, ["off", "flag", "block"] as const, "guardrail");
  }
  if (flags["allowed-models"] !== undefined) {
    next.allowed_models = flags["allowed-models"] === "all"
      ? null
      : models(flags["allowed-models"], catalog);
  }
  // Also when only the data rules change: the remote layer's model must keep a route they allow
  // (the dashboard's form always names it, so the same change is refused there).
  if (REMOTE_FLAGS.some((flag) => flags[flag] !== undefined) || next.guardrail_remote) {
    next.guardrail_remote = remote(next, flags, catalog);
  }
  return next;
}

function remote(next: OrgPolicy, flags: PolicyFlags, catalog: Catalog | undefined) {
  const change: Record<string, unknown> = {};
  const model = flags["guardrail-remote"];
  if (model !== undefined) change.model = model === "off" ? null : model;
  const timeout = flags["guardrail-remote-timeout-ms"];
  if (timeout !== undefined) {
    if (!/^\d+$/.test(timeout)) {
      throw new AdminError(
        `--guardrail-remote-timeout-ms must be a whole number, got '${timeout}'.`,
      );
    }
    change.timeout_ms = Number(timeout);
  }
  const onError = flags["guardrail-remote-on-error"];
  if (onError !== undefined) change.on_error = onError;
  try {
    return applyRemoteChange(next.guardrail_remote ?? null, change, catalog, next);
  } catch (error) {
    if (error instanceof RemoteSettingError) {
      throw new AdminError(`--${flagOf(error.field)}: ${error.message}`);
    }
    throw error;
  }
}

function flagOf(field: string): string {
  return field === "timeout_ms"
    ? "guardrail-remote-timeout-ms"
    : field === "on_error"
    ? "guardrail-remote-on-error"
    : "guardrail-remote";
}

function applyToKey(current: KeyPolicy, flags: PolicyFlags, catalog: Catalog | undefined) {
  const given = REMOTE_FLAGS.find((flag) => flags[flag] !== undefined);
  if (given !== undefined) {
    throw new AdminError(
      `--${given} is an organization setting (the remote guardrail layer); drop --key.`,
    );
  }
  const next: KeyPolicy = { ...current };
  if (flags.sovereignty !== undefined) {
    const value = oneOf(flags.sovereignty, ["any", "strict_only"] as const, "sovereignty");
    if (value === "strict_only") next.sovereignty = value;
    else delete next.sovereignty;
  }
  const list = blocked(current.blocked_providers ?? [], flags, catalog);
  if (list.length > 0) next.blocked_providers = list;
  else delete next.blocked_providers;
  if (flags["zdr-only"] !== undefined) {
    if (bool(flags["zdr-only"], "zdr-only")) next.zdr_only = true;
    else delete next.zdr_only;
  }
  if (flags.guardrail !== undefined) {
    const value = oneOf(flags.guardrail, ["off", "flag", "block"] as const, "guardrail");
    if (value === "off") delete next.guardrail;
    else next.guardrail = value;
  }
  if (flags["allowed-models"] !== undefined) {
    if (flags["allowed-models"] === "all") delete next.allowed_models;
    else next.allowed_models = models(flags["allowed-models"], catalog);
  }
  return next;
}

function blocked(list: string[], flags: PolicyFlags, catalog: Catalog | undefined): string[] {
  const out = new Set(list);
  for (const id of flags["block-provider"] ?? []) {
    if (catalog && !Object.hasOwn(catalog.providers, id)) {
      throw new AdminError(
        `--block-provider: unknown provider '${id}' (catalog: ${
          Object.keys(catalog.providers).join(", ")
        }).`,
      );
    }
    out.add(id);
  }
  for (const id of flags["unblock-provider"] ?? []) out.delete(id);
  return [...out].sort();
}

function models(raw: string, catalog: Catalog | undefined): string[] {
  const ids = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (ids.length === 0) throw new AdminError("--allowed-models needs model ids or 'all'.");
  for (const id of ids) {
    if (catalog && !catalog.activeModels().some((m) => m.id === id)) {
      throw new AdminError(`--allowed-models: unknown model '${id}'.`);
    }
  }
  return [...new Set(ids)].sort();
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new AdminError(`--${flag} must be one of ${allowed.join(", ")}, got '${value}'.`);
  }
  return value as T;
}

function bool(value: string, flag: string): boolean {
  if (value !== "true" && value !== "false") {
    throw new AdminError(`--${flag} must be true or false, got '${value}'.`);
  }
  return value === "true";
}
