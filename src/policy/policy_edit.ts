/**
 * Changing an organization's policy or a key's narrowing: the one set of business rules that the
 * admin CLI (`policy set [--key]`) and the dashboard (form and JSON API) share. A change gives, for
 * each field, its whole new value, or leaves the field out (unchanged): the CLI turns its
 * `--block-provider`/`--unblock-provider` flags into the full list first, the dashboard passes its
 * form's list. The result is the whole new policy to store, or a `PolicyEditError` (the spec's
 * error object: 400 `invalid_request`, `param` the field).
 *
 * The rules:
 * - A newly named provider must be a catalog provider (one the list already holds is kept, also
 *   when the catalog dropped it); every allow-listed model must be an active catalog model; both
 *   only when the catalog is at hand. Lists are stored sorted, without duplicates.
 * - `allowed_models: []` is refused: a policy that allows no model at all is a misconfiguration
 *   (`null` is every model — the organization's, for a key).
 * - A key only narrows: `sovereignty: "any"`, `zdr_only: false`, `guardrail: "off"`,
 *   `allowed_models: null` and an empty `blocked_providers` drop that narrowing (the stored key
 *   policy names only what it narrows); it has no remote guardrail layer.
 * - The organization's remote guardrail layer (`guardrail_remote`, validated by
 *   `guardrail_remote_setting.ts`) is re-checked whenever a policy with the layer on changes: its
 *   model must keep a route that the new data rules allow.
 */
import { GatewayError } from "../errors.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { GuardrailMode, KeyPolicy, OrgPolicy, Sovereignty } from "../state/policy_store.ts";
import {
  applyRemoteChange,
  type GuardrailRemoteChange,
  RemoteSettingError,
} from "./guardrail_remote_setting.ts";

/** A change of the fields an organization and a key share; a field left out is unchanged. */
export interface PolicyEdit {
  sovereignty?: Sovereignty | undefined;
  /** The whole new list. */
  blocked_providers?: readonly string[] | undefined;
  zdr_only?: boolean | undefined;
  /** The whole new allow-list (never empty), or null: every model. */
  allowed_models?: readonly string[] | null | undefined;
  guardrail?: GuardrailMode | undefined;
}

/** An organization's change: also its remote guardrail layer. */
export interface OrgPolicyEdit extends PolicyEdit {
  /**
   * The remote layer's change (`GuardrailRemoteChange`, parsed here): only the fields it names
   * change; `{model: null}` switches the layer off.
   */
  guardrail_remote?: unknown;
}

/** What was wrong, for a caller that words it its own way (the admin CLI names its flags). */
export type PolicyEditProblem =
  | { kind: "unknown_provider"; id: string; known: string[] }
  | { kind: "unknown_model"; id: string }
  | { kind: "empty_allow_list" }
  | { kind: "guardrail_remote"; field: keyof GuardrailRemoteChange };

const PARAM: Record<PolicyEditProblem["kind"], string> = {
  unknown_provider: "blocked_providers",
  unknown_model: "allowed_models",
  empty_allow_list: "allowed_models",
  guardrail_remote: "guardrail_remote",
};

/** A change the policy cannot take: 400 `invalid_request`, `param` the policy field. */
export class PolicyEditError extends GatewayError {
  constructor(message: string, readonly problem: PolicyEditProblem) {
    super(400, "invalid_request", message, { param: PARAM[problem.kind] });
  }
}

/** The organization's new policy: `current` with `edit` applied, validated. */
export function editOrgPolicy(
  current: OrgPolicy,
  edit: OrgPolicyEdit,
  catalog: Catalog | undefined,
): OrgPolicy {
  const next: OrgPolicy = { ...current, blocked_providers: [...current.blocked_providers] };
  if (edit.sovereignty !== undefined) next.sovereignty = edit.sovereignty;
  if (edit.blocked_providers !== undefined) {
    next.blocked_providers = providers(current.blocked_providers, edit.blocked_providers, catalog);
  }
  if (edit.zdr_only !== undefined) next.zdr_only = edit.zdr_only;
  if (edit.guardrail !== undefined) next.guardrail = edit.guardrail;
  if (edit.allowed_models !== undefined) {
    next.allowed_models = edit.allowed_models === null
      ? null
      : models(edit.allowed_models, catalog);
  }
  // Also when only the data rules change: the remote layer's model must keep a route they allow.
  if (edit.guardrail_remote !== undefined || current.guardrail_remote) {
    next.guardrail_remote = remote(next, edit.guardrail_remote ?? {}, catalog);
  }
  return next;
}

/** The key's new narrowing: `current` with `edit` applied, validated; only what it narrows. */
export function editKeyPolicy(
  current: KeyPolicy,
  edit: PolicyEdit,
  catalog: Catalog | undefined,
): KeyPolicy {
  const next: KeyPolicy = { ...current };
  if (edit.sovereignty === "strict_only") next.sovereignty = "strict_only";
  else if (edit.sovereignty === "any") delete next.sovereignty;
  if (edit.blocked_providers !== undefined) {
    const list = providers(current.blocked_providers ?? [], edit.blocked_providers, catalog);
    if (list.length > 0) next.blocked_providers = list;
    else delete next.blocked_providers;
  }
  if (edit.zdr_only === true) next.zdr_only = true;
  else if (edit.zdr_only === false) delete next.zdr_only;
  if (edit.guardrail === "flag" || edit.guardrail === "block") next.guardrail = edit.guardrail;
  else if (edit.guardrail === "off") delete next.guardrail;
  if (edit.allowed_models === null) delete next.allowed_models;
  else if (edit.allowed_models !== undefined) {
    next.allowed_models = models(edit.allowed_models, catalog);
  }
  return next;
}

/**
 * The rule for providers a change names: each must be a catalog provider, unless `current`
 * already holds it. The admin CLI also applies it to its `--block-provider` ids, which a
 * `--unblock-provider` in the same command may take out of the new list again.
 */
export function checkNamedProviders(
  current: readonly string[],
  named: readonly string[],
  catalog: Catalog | undefined,
): void {
  for (const id of named) {
    if (catalog && !current.includes(id) && !Object.hasOwn(catalog.providers, id)) {
      throw new PolicyEditError(`Unknown provider '${id}'.`, {
        kind: "unknown_provider",
        id,
        known: Object.keys(catalog.providers),
      });
    }
  }
}

function providers(
  current: readonly string[],
  list: readonly string[],
  catalog: Catalog | undefined,
): string[] {
  checkNamedProviders(current, list, catalog);
  return [...new Set(list)].sort();
}

function models(list: readonly string[], catalog: Catalog | undefined): string[] {
  if (list.length === 0) {
    throw new PolicyEditError(
      "allowed_models: an empty list would allow no model at all; name the models, or null for " +
        "every model.",
      { kind: "empty_allow_list" },
    );
  }
  for (const id of list) {
    if (catalog && !catalog.activeModels().some((m) => m.id === id)) {
      throw new PolicyEditError(`Unknown model '${id}'.`, { kind: "unknown_model", id });
    }
  }
  return [...new Set(list)].sort();
}

function remote(next: OrgPolicy, change: unknown, catalog: Catalog | undefined) {
  try {
    return applyRemoteChange(next.guardrail_remote ?? null, change, catalog, next);
  } catch (error) {
    if (error instanceof RemoteSettingError) {
      throw new PolicyEditError(error.message, { kind: "guardrail_remote", field: error.field });
    }
    throw error;
  }
}
