/**
 * `policy show` and `policy set` (operator contract, control-plane additions). `set` changes
 * only the fields given, validates every value (unknown providers and models are refused when
 * the catalog is at hand), stores the whole policy with its change-history entry (actor `cli`),
 * writes the control-plane audit entry `policy.changed` (actor `cli`, the dashboard's detail)
 * when the store has a control plane, and prints the new policy. `--key ID` applies to that
 * key's narrowing instead: a key may only be stricter than its organization (strict_only, more
 * blocked providers, zdr_only, a smaller allow-list, a stronger guardrail). Gateways pick a
 * change up within 30 s.
 *
 * The guardrail's remote layer (organization only): `--guardrail-remote MODEL|off`,
 * `--guardrail-remote-timeout-ms N`, `--guardrail-remote-on-error open|closed`. With `--key`, a
 * key narrowing that leaves that classifier no route is kept, with `warnings` in the answer
 * (`policy/key_remote_warning.ts`; the CLI also prints each on stderr); without `--key`, the
 * warnings of every such key of the organization.
 *
 * The business rules (what a value may be, what a key may narrow) are `policy/policy_edit.ts`, the
 * dashboard's too: this file turns flags into its typed change and its refusals into the CLI's
 * wording (operator contract: unchanged).
 */
import type { Store } from "../state/store.ts";
import { DEFAULT_ORG_POLICY, type KeyPolicy, type OrgPolicy } from "../state/policy_store.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { effectivePolicy } from "../policy/effective_policy.ts";
import { allowedModelIds } from "../policy/route_rules.ts";
import {
  checkNamedProviders,
  editKeyPolicy,
  editOrgPolicy,
  type OrgPolicyEdit,
  type PolicyEdit,
  PolicyEditError,
} from "../policy/policy_edit.ts";
import { keyRemoteWarning, orgKeyRemoteWarnings } from "../policy/key_remote_warning.ts";
import { AdminError } from "./commands.ts";
import type { ControlStore } from "../state/control_store.ts";
import { audit } from "../dashboard/audit.ts";
import { keyPolicyAuditDetail, orgPolicyAuditDetail } from "../policy/policy_audit.ts";

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
  /** The control plane's audit log (absent: a store without one). */
  control?: Pick<ControlStore, "appendAudit">,
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
    const logged = control && { control, now: Date.now };
    if (keyId === undefined) {
      const current = await store.getOrgPolicy(orgId) ?? DEFAULT_ORG_POLICY;
      const next = applyToOrg(current, flags, catalog);
      await store.putOrgPolicy(orgId, next, "cli");
      if (logged) {
        await audit(logged, orgId, "cli", "policy.changed", orgId, orgPolicyAuditDetail(next));
      }
    } else {
      const current = await store.getKeyPolicy(keyId) ?? {};
      const next = applyToKey(current, flags, catalog);
      await store.putKeyPolicy(orgId, keyId, next, "cli");
      if (logged) {
        await audit(
          logged,
          orgId,
          "cli",
          "policy.changed",
          keyId,
          keyPolicyAuditDetail(keyId, next),
        );
      }
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

/**
 * The flags as a change for `policy/policy_edit.ts`: each given field's whole new value (the
 * blocked providers: the current list plus `--block-provider`, less `--unblock-provider`).
 */
function editOf(flags: PolicyFlags, blocked: readonly string[]): PolicyEdit {
  const list = new Set(blocked);
  for (const id of flags["block-provider"] ?? []) list.add(id);
  for (const id of flags["unblock-provider"] ?? []) list.delete(id);
  const models = flags["allowed-models"];
  return {
    sovereignty: flags.sovereignty === undefined
      ? undefined
      : oneOf(flags.sovereignty, ["any", "strict_only"] as const, "sovereignty"),
    blocked_providers: [...list],
    zdr_only: flags["zdr-only"] === undefined ? undefined : bool(flags["zdr-only"], "zdr-only"),
    guardrail: flags.guardrail === undefined
      ? undefined
      : oneOf(flags.guardrail, ["off", "flag", "block"] as const, "guardrail"),
    allowed_models: models === undefined
      ? undefined
      : models === "all"
      ? null
      : models.split(",").map((s) => s.trim()).filter((s) => s !== ""),
  };
}

function applyToOrg(current: OrgPolicy, flags: PolicyFlags, catalog: Catalog | undefined) {
  const edit: OrgPolicyEdit = editOf(flags, current.blocked_providers);
  if (REMOTE_FLAGS.some((flag) => flags[flag] !== undefined)) edit.guardrail_remote = remote(flags);
  return cliErrors(() => {
    checkBlockFlags(current.blocked_providers, flags, catalog);
    return editOrgPolicy(current, edit, catalog);
  });
}

/** The remote layer's flags as a change (validated by `policy/guardrail_remote_setting.ts`). */
function remote(flags: PolicyFlags): Record<string, unknown> {
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
  return change;
}

function applyToKey(current: KeyPolicy, flags: PolicyFlags, catalog: Catalog | undefined) {
  const given = REMOTE_FLAGS.find((flag) => flags[flag] !== undefined);
  if (given !== undefined) {
    throw new AdminError(
      `--${given} is an organization setting (the remote guardrail layer); drop --key.`,
    );
  }
  const edit = editOf(flags, current.blocked_providers ?? []);
  return cliErrors(() => {
    checkBlockFlags(current.blocked_providers ?? [], flags, catalog);
    return editKeyPolicy(current, edit, catalog);
  });
}

/**
 * Every `--block-provider` id is checked, also one that `--unblock-provider` takes out of the
 * new list again (the shared rules see only that list): an unknown id is refused, as always.
 */
function checkBlockFlags(current: readonly string[], flags: PolicyFlags, catalog?: Catalog) {
  checkNamedProviders(current, flags["block-provider"] ?? [], catalog);
}

/** The shared rules' refusals, worded as the CLI always has (operator contract). */
function cliErrors<T>(edit: () => T): T {
  try {
    return edit();
  } catch (error) {
    if (!(error instanceof PolicyEditError)) throw error;
    const problem = error.problem;
    switch (problem.kind) {
      case "unknown_provider":
        throw new AdminError(
          `--block-provider: unknown provider '${problem.id}' (catalog: ${
            problem.known.join(", ")
          }).`,
        );
      case "unknown_model":
        throw new AdminError(`--allowed-models: unknown model '${problem.id}'.`);
      case "empty_allow_list":
        throw new AdminError("--allowed-models needs model ids or 'all'.");
      case "guardrail_remote":
        throw new AdminError(`--${flagOf(problem.field)}: ${error.message}`);
    }
  }
}

function flagOf(field: string): string {
  return field === "timeout_ms"
    ? "guardrail-remote-timeout-ms"
    : field === "on_error"
    ? "guardrail-remote-on-error"
    : "guardrail-remote";
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
