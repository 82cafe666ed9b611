/**
 * Routing policies of an organization for the dashboard: the chat models to pick a pool
 * from, the policies with their served-model split and spend over the last days, save
 * (validated as the admin CLI validates), delete, and the predicted split and cost of a
 * draft on the built-in sample set.
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { audit } from "../audit.ts";
import { badInput, notFound } from "../errors.ts";
import type { Catalog } from "../../catalog/catalog.ts";
import type { Model } from "../../catalog/schema.ts";
import type { RoutingPolicyRecord, RoutingPolicyStore } from "../../state/routing_policy_store.ts";
import { PolicyError, validatePolicy } from "../../smart_router/validate_policy.ts";
import type { RoutingPolicy } from "../../smart_router/policy.ts";
import { toRecord } from "../../smart_router/policy_record.ts";
import { type Prediction, predictSplit } from "../../smart_router/predict.ts";

/** Days of request metadata the per-policy split and spend cover. */
export const USAGE_DAYS = 7;
const USAGE_SCAN = 20_000;

export interface ModelRow {
  id: string;
  name: string;
  promptMicroEurPerMillion: number;
  completionMicroEurPerMillion: number;
  quality: number | undefined;
  sovereignty: string;
  contextLength: number | undefined;
  tools: boolean;
  reasoning: boolean;
}

export interface PolicyRow {
  policy: RoutingPolicyRecord;
  /** Served model → requests, over the last `USAGE_DAYS` days. */
  served: Record<string, number>;
  requests: number;
  spendMicroEur: number;
}

export interface PolicyDraft {
  id: string;
  name?: string | undefined;
  pool: string[];
  strategy: string;
  threshold?: number | undefined;
  sticky_seconds?: number | undefined;
}

function catalogOf(deps: DashboardDeps): Catalog {
  const catalog = deps.catalog?.();
  if (!catalog) throw badInput("The catalog is not available to this dashboard.");
  return catalog;
}

function area(deps: DashboardDeps): RoutingPolicyStore {
  if (!deps.store.routingPolicies) {
    throw badInput("This state backend has no routing-policy area yet.");
  }
  return deps.store.routingPolicies;
}

export function chatModels(deps: DashboardDeps): ModelRow[] {
  const catalog = deps.catalog?.();
  if (!catalog) return [];
  return catalog.activeModels().filter((m) => m.kind === "chat").map((m) => ({
    id: m.id,
    name: m.name ?? m.id,
    promptMicroEurPerMillion: m.pricing.prompt_micro_eur_per_million ?? 0,
    completionMicroEurPerMillion: m.pricing.completion_micro_eur_per_million ?? 0,
    quality: m.quality?.overall,
    sovereignty: m.sovereignty,
    contextLength: m.context_length,
    tools: m.supported_parameters.includes("tools"),
    reasoning: m.reasoning !== undefined,
  }));
}

export async function listPolicies(deps: DashboardDeps, access: OrgAccess): Promise<PolicyRow[]> {
  requirePermission(access, "read", "see routing policies");
  if (!deps.store.routingPolicies) return [];
  const policies = await deps.store.routingPolicies.listRoutingPolicies(access.org.id);
  const now = deps.now();
  const rows = await deps.control.requestsBetween(
    access.org.id,
    new Date(now - USAGE_DAYS * 86_400_000),
    new Date(now + 60_000),
    USAGE_SCAN,
  );
  return policies.map((policy) => {
    const served: Record<string, number> = {};
    let requests = 0;
    let spend = 0;
    for (const r of rows) {
      if (r.routing_policy !== policy.id) continue;
      requests++;
      spend += r.cost_micro_eur;
      const model = r.served_model ?? "(not served)";
      served[model] = (served[model] ?? 0) + 1;
    }
    return { policy, served, requests, spendMicroEur: spend };
  });
}

function validated(deps: DashboardDeps, draft: PolicyDraft, created?: string): RoutingPolicy {
  try {
    return validatePolicy({
      id: draft.id.trim(),
      pool: draft.pool,
      strategy: draft.strategy,
      ...(draft.name?.trim() ? { name: draft.name.trim() } : {}),
      ...(draft.threshold === undefined ? {} : { threshold: draft.threshold }),
      ...(draft.sticky_seconds === undefined ? {} : { sticky_seconds: draft.sticky_seconds }),
      ...(created ? { created: Date.parse(created) } : {}),
    }, catalogOf(deps));
  } catch (error) {
    if (error instanceof PolicyError) throw badInput(error.message);
    throw error;
  }
}

/** The predicted split and cost of a draft on the sample set (nothing is saved). */
export function previewPolicy(deps: DashboardDeps, draft: PolicyDraft): Prediction {
  const policy = validated(deps, { ...draft, id: draft.id.trim() || "preview" });
  const catalog = catalogOf(deps);
  return predictSplit(policy, (id) => catalog.models.find((m: Model) => m.id === id));
}

export async function savePolicy(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  draft: PolicyDraft,
): Promise<RoutingPolicyRecord> {
  requirePermission(access, "manage_keys", "change routing policies");
  const store = area(deps);
  const existing = await store.getRoutingPolicy(access.org.id, draft.id.trim());
  const policy = validated(deps, draft, existing?.created);
  const record = toRecord(access.org.id, policy, new Date(deps.now()));
  await store.putRoutingPolicy(record);
  await audit(deps, access.org.id, viewer.user.email, "routing.saved", policy.id, {
    strategy: policy.strategy,
    threshold: policy.threshold,
    pool: policy.pool.join(","),
  });
  return record;
}

export async function deletePolicy(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  id: string,
): Promise<void> {
  requirePermission(access, "manage_keys", "change routing policies");
  if (!(await area(deps).deleteRoutingPolicy(access.org.id, id))) {
    throw notFound("Routing policy");
  }
  await audit(deps, access.org.id, viewer.user.email, "routing.deleted", id);
}
