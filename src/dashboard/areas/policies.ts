/**
 * Organization policies in the dashboard: the policy with what each setting leaves
 * allowed, changes by owners and admins (stored with the policy's own audit trail and in the
 * control-plane audit log), and a dry run: would this request pass?
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { audit } from "../audit.ts";
import { badInput } from "../errors.ts";
import {
  DEFAULT_ORG_POLICY,
  type OrgPolicy,
  type PolicyAuditEntry,
} from "../../state/policy_store.ts";
import { effectivePolicy } from "../../policy/effective_policy.ts";
import { routeRefusal, routeTier } from "../../policy/route_rules.ts";
import { Guardrail } from "../../guardrail/scanner.ts";
import type { Catalog } from "../../catalog/catalog.ts";
import type { Model } from "../../catalog/schema.ts";
import {
  type GuardrailRemoteChange,
  remoteRouteRefusal,
} from "../../policy/guardrail_remote_setting.ts";
import { editOrgPolicy, type OrgPolicyEdit } from "../../policy/policy_edit.ts";
import { orgPolicyAuditDetail } from "../../policy/policy_audit.ts";
import { isBorderline } from "../../policy/remote_guardrail.ts";
import { orgKeyRemoteWarnings } from "../../policy/key_remote_warning.ts";
import { keyPolicies, type KeyPolicyRow } from "./key_policies.ts";

export interface ModelVerdict {
  id: string;
  allowed: boolean;
  /** Why each refused route was refused (rule and provider), when not allowed. */
  reasons: string[];
}

export interface PolicyView {
  policy: OrgPolicy;
  models: ModelVerdict[];
  /** The catalog's moderation models (the remote guardrail layer's choices), with reachability. */
  moderationModels: ModelVerdict[];
  providers: Array<{ id: string; name: string; tier: string | null; zdr: boolean }>;
  changes: PolicyAuditEntry[];
  /** Keys whose narrowing leaves the remote guardrail classifier no route (allowed, worth knowing). */
  warnings: string[];
}

export async function policyView(deps: DashboardDeps, access: OrgAccess): Promise<PolicyView> {
  const { policy, changes } = await readPolicy(deps, access);
  const catalog = deps.catalog?.();
  const warnings = await orgKeyRemoteWarnings(deps.store, catalog, access.org.id, policy);
  return viewOf(catalog, policy, changes, warnings);
}

/**
 * The policies page: the organization's view and its keys' table from one pass over the keys (the
 * view's warnings are the rows' warnings), so each key's policy is read once per render.
 */
export async function policyPage(
  deps: DashboardDeps,
  access: OrgAccess,
): Promise<{ view: PolicyView; keys: KeyPolicyRow[] }> {
  const { policy, changes } = await readPolicy(deps, access);
  const keys = await keyPolicies(deps, access, policy);
  const view = viewOf(deps.catalog?.(), policy, changes, keys.flatMap((k) => k.warnings));
  return { view, keys };
}

async function readPolicy(deps: DashboardDeps, access: OrgAccess) {
  const [stored, changes] = await Promise.all([
    deps.store.getOrgPolicy(access.org.id),
    deps.store.listPolicyAudit(access.org.id, 20),
  ]);
  return { policy: { ...DEFAULT_ORG_POLICY, ...stored }, changes };
}

function viewOf(
  catalog: Catalog | undefined,
  policy: OrgPolicy,
  changes: PolicyAuditEntry[],
  warnings: string[],
): PolicyView {
  return {
    policy,
    models: catalog ? modelVerdicts(catalog, policy) : [],
    moderationModels: catalog ? moderationVerdicts(catalog, policy) : [],
    providers: catalog
      ? Object.entries(catalog.providers).map(([id, p]) => ({
        id,
        name: p.name ?? id,
        tier: p.sovereignty ?? null,
        zdr: p.zdr,
      }))
      : [],
    changes: changes.filter((e) => e.key_id === null),
    warnings,
  };
}

function modelVerdicts(catalog: Catalog, policy: OrgPolicy): ModelVerdict[] {
  return verdictsOf(catalog, catalog.activeModels(), policy, routeRefusal);
}

/** Whether the organization's data rules let the text reach each moderation model. */
function moderationVerdicts(catalog: Catalog, policy: OrgPolicy): ModelVerdict[] {
  return verdictsOf(catalog, catalog.moderationModels(), policy, remoteRouteRefusal);
}

/** A model is allowed when at least one of its routes is; else every distinct reason. */
function verdictsOf(
  catalog: Catalog,
  models: readonly Model[],
  policy: OrgPolicy,
  refusalOf: typeof routeRefusal,
): ModelVerdict[] {
  const effective = effectivePolicy(policy, undefined);
  return models.map((model) => {
    const refusals = catalog.routesOf(model).map((r) => refusalOf(r, effective));
    const allowed = refusals.some((r) => r === undefined);
    return {
      id: model.id,
      allowed,
      reasons: allowed ? [] : [...new Set(refusals.map((r) => r!.reason))],
    };
  });
}

/**
 * The fields given change (each its whole new value; the remote layer: `{model: null}` switches it
 * off, its other fields change only what they name); the rules: `policy/policy_edit.ts`.
 */
export interface PolicyChange extends OrgPolicyEdit {
  guardrail_remote?: GuardrailRemoteChange | undefined;
}

export async function updatePolicy(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  change: PolicyChange,
): Promise<OrgPolicy> {
  requirePermission(access, "manage_policies", "changing the organization's policies");
  const current = await deps.store.getOrgPolicy(access.org.id) ?? DEFAULT_ORG_POLICY;
  const next = editOrgPolicy(current, change, deps.catalog?.());
  await deps.store.putOrgPolicy(access.org.id, next, `dashboard:${viewer.user.email}`);
  await audit(
    deps,
    access.org.id,
    viewer.user.email,
    "policy.changed",
    access.org.id,
    orgPolicyAuditDetail(next),
  );
  return next;
}

export interface DryRun {
  model: string;
  /** Whether the request would be sent upstream. */
  passes: boolean;
  /** The answer the gateway would give when it does not pass. */
  refusal: { status: number; code: string; message: string } | null;
  routes: Array<{ provider: string; tier: string; allowed: boolean; reason: string | null }>;
  guardrail: {
    mode: string;
    verdict: string;
    rule: string | null;
    /**
     * Borderline with the remote layer on: the moderation model a real request would ask (the dry
     * run never sends the text anywhere, so its answer is not known); null otherwise.
     */
    remote: { model: string; on_error: "open" | "closed" } | null;
  } | null;
}

let guardrail: Guardrail | undefined;

/**
 * Would a request for `model` (with `text` as its newest user message or tool result) pass
 * this organization's policy? Nothing is stored and nothing is sent; the text is scanned in
 * memory only.
 */
export async function dryRun(
  deps: DashboardDeps,
  access: OrgAccess,
  input: { model: string; text?: string | undefined; channel?: "user" | "tool" | undefined },
): Promise<DryRun> {
  const catalog = deps.catalog?.();
  if (!catalog) throw badInput("The catalog is not available to this dashboard.");
  const model = catalog.activeModels().find((m) => m.id === input.model);
  if (!model) throw badInput(`Unknown model '${input.model}'.`, "model");
  const stored = await deps.store.getOrgPolicy(access.org.id);
  const policy = effectivePolicy(stored, undefined);
  const routes = catalog.routesOf(model).map((route) => {
    const refusal = routeRefusal(route, policy);
    return {
      provider: route.providerId,
      tier: routeTier(route),
      allowed: refusal === undefined,
      reason: refusal?.reason ?? null,
    };
  });
  let refusal: DryRun["refusal"] = null;
  if (!routes.some((r) => r.allowed)) {
    refusal = {
      status: 403,
      code: "policy_forbids_model",
      message: [...new Set(routes.map((r) => r.reason))].join("; "),
    };
  }
  let scan: DryRun["guardrail"] = null;
  const chatKind = model.kind === "chat";
  if (input.text && chatKind && policy.guardrail !== "off") {
    guardrail ??= new Guardrail();
    const verdict = guardrail.scan([{
      path: "messages[0]",
      role: input.channel === "tool" ? "tool" : "user",
      channel: input.channel === "tool" ? "tool" : "user",
      text: input.text,
    }]);
    const action = verdict.action === "block" && policy.guardrail === "flag"
      ? "flag"
      : verdict.action;
    const remote = policy.guardrailRemote && isBorderline(verdict)
      ? { model: policy.guardrailRemote.model, on_error: policy.guardrailRemote.on_error }
      : null;
    scan = { mode: policy.guardrail, verdict: action, rule: verdict.rule ?? null, remote };
    if (refusal === null && action === "block") {
      refusal = {
        status: 400,
        code: "prompt_injection_detected",
        message: `The guardrail would block it: rule ${verdict.rule}.`,
      };
    }
  }
  return { model: model.id, passes: refusal === null, refusal, routes, guardrail: scan };
}
