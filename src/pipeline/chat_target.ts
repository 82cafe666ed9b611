/**
 * The chat pipeline's first step: what a chat-kind request (chat completions, responses) names,
 * a catalog chat model or `router/<policy-id>`, a routing policy of the caller's organization.
 * An unknown id, or a policy of another organization, is the spec's 404 `model_not_found`. The
 * handler decodes the request for the target's model; for a router, the chat call then reads
 * the pins its request could use from the store before the (synchronous) plan.
 */
import type { PipelineDeps } from "./pipeline_deps.ts";
import type { Model } from "../catalog/schema.ts";
import type { ChatRequest } from "../canonical/chat.ts";
import { modelNotFound } from "../errors.ts";
import { routerPolicyId } from "../smart_router/policy.ts";
import { noEligibleModel } from "../smart_router/errors.ts";
import { poolTable } from "../routing/pool_table.ts";

type TargetDeps = Pick<PipelineDeps, "catalog" | "routerPolicies">;

export interface ChatTarget {
  /** The catalog model (for a router: the pool's first active chat model, for decoding). */
  model: Model;
  /** Set for `router/<id>`: what the client sent. */
  requestedModel?: string;
}

/**
 * A catalog model is resolved at once (no promise, so the route need not wait a turn for it);
 * `router/<id>` reads the policy: a promise.
 */
export function resolveChatTarget(
  deps: TargetDeps,
  id: string,
  org: string,
): ChatTarget | Promise<ChatTarget> {
  const policyId = routerPolicyId(id);
  if (policyId === undefined) return { model: deps.catalog.current.requireModel(id, "chat") };
  return routerTarget(deps, id, policyId, org);
}

async function routerTarget(
  deps: TargetDeps,
  id: string,
  policyId: string,
  org: string,
): Promise<ChatTarget> {
  const policy = await deps.routerPolicies.load(org, policyId);
  if (!policy) throw modelNotFound(id);
  const first = poolTable(policy, deps.catalog.current).firstActiveChat;
  if (!first) {
    throw noEligibleModel(policy.id, policy.pool.map((m) => ({ id: m, reason: "not active" })));
  }
  return { model: first, requestedModel: id };
}

/**
 * For `router/<id>` (`requestedModel` set): reads the router pins this request could use
 * (a tool-loop continuation, a sticky end-user) that other instances wrote. Undefined, with
 * no store read, when there is none to read (no continuation, no sticky end-user, or every
 * pin already held here).
 */
export function prefetchRouterPins(
  deps: Pick<PipelineDeps, "routerPolicies" | "routerPins">,
  org: string,
  requestedModel: string | undefined,
  request: Pick<ChatRequest, "messages" | "user">,
): Promise<void> | undefined {
  const policyId = requestedModel === undefined ? undefined : routerPolicyId(requestedModel);
  if (policyId === undefined) return undefined;
  const policy = deps.routerPolicies.peek(org, policyId);
  return policy ? deps.routerPins.prefetch(org, policy, request) : undefined;
}
