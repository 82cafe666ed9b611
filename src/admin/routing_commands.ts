/**
 * `routing create|list|show|delete`: the customer's smart-router policies from the admin CLI.
 * `create` validates at save time (slug, strategy, threshold, and every pool model against
 * the catalog: unknown, disabled or non-chat models are refused with the model named) and
 * replaces a policy of the same id. The gateway picks a change up within 30 s.
 */
import type { Catalog } from "../catalog/catalog.ts";
import { lifecycleNotices } from "../catalog/lifecycle.ts";
import type { Store } from "../state/store.ts";
import type { RoutingPolicyStore } from "../state/routing_policy_store.ts";
import { routingPolicyView, toRecord } from "../smart_router/policy_record.ts";
import { PolicyError, validatePolicy } from "../smart_router/validate_policy.ts";

export class RoutingCommandError extends Error {
  override name = "RoutingCommandError";
}

type Flags = Record<string, string | boolean | undefined>;

function area(store: Store): RoutingPolicyStore {
  if (!store.routingPolicies) {
    throw new RoutingCommandError("This state backend has no routing-policy area yet.");
  }
  return store.routingPolicies;
}

function need(flags: Flags, name: string): string {
  const value = flag(flags, name);
  if (value === undefined || value === "") throw new RoutingCommandError(`Missing --${name}.`);
  return value;
}

/** `{ [key]: value }`, or nothing when the value is absent. */
function optional(key: string, value: unknown): Record<string, unknown> {
  return value === undefined ? {} : { [key]: value };
}

/** A string flag (a boolean flag here is a mistake: treated as absent). */
function flag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

function integer(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) {
    throw new RoutingCommandError(`--${name} must be an integer, got '${raw}'.`);
  }
  return Number(raw);
}

/** `ttft=1,error_rate=2` → weights. */
function weights(raw: string | undefined): Record<string, number> | undefined {
  if (raw === undefined) return undefined;
  const out: Record<string, number> = {};
  for (const part of raw.split(",").filter(Boolean)) {
    const [key, value] = part.split("=");
    if (!key || value === undefined || Number.isNaN(Number(value))) {
      throw new RoutingCommandError(`--weights takes name=number pairs, got '${part}'.`);
    }
    out[key.trim()] = Number(value);
  }
  return out;
}

function validateOrThrow(input: unknown, catalog: Catalog) {
  try {
    return validatePolicy(input, catalog);
  } catch (error) {
    throw error instanceof PolicyError ? new RoutingCommandError(error.message) : error;
  }
}

export async function runRoutingCommand(
  store: Store,
  catalog: () => Promise<Catalog>,
  sub: string,
  flags: Flags,
  requireOrg: (org: string) => Promise<unknown>,
): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  const org = need(flags, "org");
  await requireOrg(org);
  const policies = area(store);
  switch (sub) {
    case "create": {
      const id = need(flags, "id");
      const existing = await policies.getRoutingPolicy(org, id);
      const policy = validateOrThrow({
        id,
        pool: need(flags, "pool").split(",").map((s) => s.trim()).filter(Boolean),
        ...optional("strategy", flag(flags, "strategy")),
        ...optional("threshold", integer(flag(flags, "threshold"), "threshold")),
        ...optional("name", flag(flags, "name")),
        ...optional("weights", weights(flag(flags, "weights"))),
        ...optional("sticky_seconds", integer(flag(flags, "sticky-seconds"), "sticky-seconds")),
        ...(existing ? { created: Date.parse(existing.created) } : {}),
      }, await catalog());
      const record = toRecord(org, policy, new Date());
      await policies.putRoutingPolicy(record);
      // A pool model the provider deprecated or retires soon is told (stderr), not refused.
      const current = await catalog();
      const pool = current.models.filter((m) => policy.pool.includes(m.id));
      const warnings = lifecycleNotices(pool, current.today()).map((n) => n.message);
      const view = routingPolicyView(record);
      return warnings.length > 0 ? { ...view, warnings } : view;
    }
    case "list":
      return (await policies.listRoutingPolicies(org)).map(routingPolicyView);
    case "show": {
      const id = need(flags, "id");
      const record = await policies.getRoutingPolicy(org, id);
      if (!record) throw new RoutingCommandError(`Routing policy '${id}' does not exist.`);
      return routingPolicyView(record);
    }
    case "delete": {
      const id = need(flags, "id");
      if (!(await policies.deleteRoutingPolicy(org, id))) {
        throw new RoutingCommandError(`Routing policy '${id}' does not exist.`);
      }
      return { deleted: true };
    }
    default:
      throw new RoutingCommandError(
        `Unknown command 'routing ${sub}'. Commands: routing create|list|show|delete.`,
      );
  }
}
