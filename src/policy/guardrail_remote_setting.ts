/**
 * The `guardrail_remote` policy setting (the guardrail's optional remote layer): one
 * validation for the admin CLI and the dashboard. A change names only the fields it changes;
 * `model: null` switches the layer off. The model must be an active catalog model of kind
 * `moderation` (the catalog declares which answer categories mean prompt injection), the
 * timeout short (50–5000 ms; default 1500), the failure mode `open` (default: the local verdict
 * stands) or `closed` (refused with 503 `guardrail_unavailable`).
 */
import { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import type { GuardrailRemote, OrgPolicy } from "../state/policy_store.ts";
import { type EffectivePolicy, effectivePolicy } from "./effective_policy.ts";
import { type RouteRefusal, routeRefusal } from "./route_rules.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";

export const REMOTE_TIMEOUT_MIN_MS = 50;
export const REMOTE_TIMEOUT_MAX_MS = 5000;
export const REMOTE_TIMEOUT_DEFAULT_MS = 1500;

export const GuardrailRemoteChange = z.strictObject({
  model: z.string().min(1).nullable().optional(),
  timeout_ms: z.number().int().min(REMOTE_TIMEOUT_MIN_MS).max(REMOTE_TIMEOUT_MAX_MS).optional(),
  on_error: z.enum(["open", "closed"]).optional(),
});
export type GuardrailRemoteChange = z.infer<typeof GuardrailRemoteChange>;

/** A setting the policy cannot take; `field` names the offending field of the change. */
export class RemoteSettingError extends Error {
  constructor(message: string, readonly field: keyof GuardrailRemoteChange) {
    super(message);
  }
}

/**
 * The new setting: `current` with `change` applied, validated (the model against `catalog`
 * when it is at hand, and against the organization's own routing rules `policy`: a model none
 * of whose routes the policy allows would never be asked). The CLI and the dashboard call it
 * with an empty change too when a policy with the layer on changes otherwise, so a data rule
 * that leaves the classifier no route is refused there alike. Throws `RemoteSettingError`.
 */
export function applyRemoteChange(
  current: GuardrailRemote | null,
  raw: unknown,
  catalog: Catalog | undefined,
  policy?: OrgPolicy,
): GuardrailRemote | null {
  const parsed = GuardrailRemoteChange.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? "model") as keyof GuardrailRemoteChange;
    throw new RemoteSettingError(`guardrail_remote.${field}: ${issue.message}`, field);
  }
  const change = parsed.data;
  if (change.model === null) {
    if (change.timeout_ms !== undefined || change.on_error !== undefined) {
      throw new RemoteSettingError(
        "guardrail_remote: a timeout or failure mode needs a model (the layer is being switched off).",
        "model",
      );
    }
    return null;
  }
  const model = change.model ?? current?.model;
  if (model === undefined) {
    throw new RemoteSettingError(
      "guardrail_remote: the remote layer is off; name a moderation model to switch it on.",
      "model",
    );
  }
  if (catalog && change.model !== undefined && !catalog.moderationModel(model)) {
    const known = catalog.moderationModels().map((m) => m.id);
    throw new RemoteSettingError(
      `guardrail_remote.model: '${model}' is not an active moderation model of the catalog (${
        known.length > 0 ? `moderation models: ${known.join(", ")}` : "it has none"
      }).`,
      "model",
    );
  }
  const entry = catalog?.moderationModel(model);
  if (entry && policy) {
    const effective = effectivePolicy(policy, undefined);
    const refusals = catalog!.routesOf(entry).map((route) => remoteRouteRefusal(route, effective));
    if (refusals.every((r) => r !== undefined)) {
      throw new RemoteSettingError(
        `guardrail_remote.model: the organization's policy allows no route of '${model}': ${
          [...new Set(refusals.map((r) => r!.reason))].join("; ")
        } (name another moderation model, or switch the remote layer off).`,
        "model",
      );
    }
  }
  return {
    model,
    timeout_ms: change.timeout_ms ?? current?.timeout_ms ?? REMOTE_TIMEOUT_DEFAULT_MS,
    on_error: change.on_error ?? current?.on_error ?? "open",
  };
}

/**
 * Whether the policy lets the text go to this route of the moderation model: the rules about
 * where data may go (sovereignty, blocked providers, ZDR) apply; the allow-list, which names the
 * models clients may call, does not.
 */
export function remoteRouteRefusal(
  route: ResolvedRoute,
  policy: EffectivePolicy,
): RouteRefusal | undefined {
  return routeRefusal(route, { ...policy, allowedModels: null, allowedModelsSource: null });
}
