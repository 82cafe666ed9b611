/**
 * A key's narrowing may leave the organization's remote guardrail classifier no route (a key can
 * only be stricter: strict_only, more blocked providers, zdr_only). Requests of that key then never
 * send a borderline text anywhere (the classifier's route must satisfy the key's rules too), and
 * the check counts as an error: with `on_error: closed` its borderline requests get 503
 * `guardrail_unavailable` in block mode; with `open` the local verdict decides alone. That is kept
 * (the text never leaves), but the admin CLI and the dashboard warn when such a key policy is saved
 * or shown; they do not refuse it. The organization's own rules are validated elsewhere
 * (guardrail_remote_setting.ts refuses a setting they leave without a route).
 */
import type { Catalog } from "../catalog/catalog.ts";
import type { KeyPolicy, OrgPolicy, PolicyStore } from "../state/policy_store.ts";
import type { ApiKeyRecord } from "../state/records.ts";
import { effectivePolicy } from "./effective_policy.ts";
import { remoteRouteRefusal } from "./guardrail_remote_setting.ts";

/** The warning for this key's effective rules, or undefined when the classifier keeps a route. */
export function keyRemoteWarning(
  catalog: Catalog | undefined,
  org: OrgPolicy | undefined,
  keyId: string,
  key: KeyPolicy | undefined,
): string | undefined {
  const setting = org?.guardrail_remote;
  if (!catalog || !setting || !key) return undefined;
  const model = catalog.moderationModel(setting.model);
  if (!model) return undefined;
  const routes = catalog.routesOf(model);
  const orgOnly = effectivePolicy(org, undefined);
  // The organization's own rules leave it no route: not this key's doing (refused at the org).
  if (routes.every((route) => remoteRouteRefusal(route, orgOnly) !== undefined)) return undefined;
  const effective = effectivePolicy(org, key);
  const refusals = routes.map((route) => remoteRouteRefusal(route, effective));
  if (refusals.some((r) => r === undefined)) return undefined;
  const reasons = [...new Set(refusals.map((r) => r!.reason))].join("; ");
  const outcome = setting.on_error === "closed"
    ? "the policy fails closed (on_error=closed), so in block mode its borderline requests get " +
      "503 guardrail_unavailable (the text is never sent)"
    : "the policy fails open (on_error=open), so its borderline requests are decided by the " +
      "local scan alone";
  return `Key '${keyId}': its policy leaves the organization's remote guardrail classifier ` +
    `'${setting.model}' no route (${reasons}); ${outcome}. Kept as set; to change it, loosen ` +
    "the key's rules or name a moderation model with a route they allow.";
}

/**
 * The warnings of every active key of the organization (its policy pages and `policy show|set`
 * without `--key`): an organization change — switching the layer on, another model — can leave an
 * existing key narrowing without a classifier route too. Reads nothing when the layer is off.
 */
export async function orgKeyRemoteWarnings(
  store: Pick<PolicyStore, "getKeyPolicy"> & {
    listApiKeys(orgId: string): Promise<ApiKeyRecord[]>;
  },
  catalog: Catalog | undefined,
  orgId: string,
  org: OrgPolicy | undefined,
): Promise<string[]> {
  if (!catalog || !org?.guardrail_remote) return [];
  const keys = (await store.listApiKeys(orgId)).filter((k) => !k.revoked);
  const policies = await Promise.all(keys.map((k) => store.getKeyPolicy(k.id)));
  const out: string[] = [];
  keys.forEach((k, i) => {
    const warning = keyRemoteWarning(catalog, org, k.id, policies[i]);
    if (warning) out.push(warning);
  });
  return out;
}
