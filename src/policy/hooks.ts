/**
 * The policy's two steps of the routing plan (ARCHITECTURE.md "The routing plan"): the
 * guardrail request check, and the candidate filter that removes every route the caller's
 * effective policy does not allow and fails closed with 403 `policy_forbids_model` when none
 * is left. Typed by the fields they read, so the composition root can put them into
 * `RoutingHooks` without this layer importing the routing layer.
 */
import { clientClosed, GatewayError } from "../errors.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { Model } from "../catalog/schema.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { Guardrail } from "../guardrail/scanner.ts";
import type { EffectivePolicy } from "./effective_policy.ts";
import { routeRefusal } from "./route_rules.ts";
import { checkGuardrail, type GuardrailInput, type RemoteCheck } from "./guardrail_check.ts";
import type { RemoteTransport } from "./remote_guardrail.ts";
import { PlanRefusal, refusalOf, type RefusalPlanInput } from "./refusal_record.ts";

interface PolicyPlanInput extends RefusalPlanInput {
  caller: RefusalPlanInput["caller"] & { policy?: EffectivePolicy };
  catalog: Catalog;
  model: Model;
}

export const POLICY_FILTER_NAME = "org-policy";

/** The refusal it leaves when it removed every route carries its metadata record. */
export function policyFilter() {
  return {
    name: POLICY_FILTER_NAME,
    exclude(route: ResolvedRoute, input: PolicyPlanInput): string | undefined {
      const policy = input.caller.policy;
      return policy === undefined ? undefined : routeRefusal(route, policy)?.reason;
    },
    /**
     * `context`: the model the client asked for (`router/<id>` for a router) and the routes
     * that were removed (a router's pool); without it, the requested catalog model's routes.
     */
    noneLeft(
      input: PolicyPlanInput,
      context?: { requested: string; routes: readonly ResolvedRoute[] },
    ): PlanRefusal {
      const policy = input.caller.policy!;
      const reasons = new Set<string>();
      for (const route of context?.routes ?? input.catalog.routesOf(input.model)) {
        const refusal = routeRefusal(route, policy);
        if (refusal) reasons.add(refusal.reason);
      }
      const requested = context?.requested ?? input.model.id;
      const error = new GatewayError(
        403,
        "policy_forbids_model",
        `The organization's policy allows no route for model '${requested}': ${
          [...reasons].join("; ")
        }. No provider was called.`,
        // The spec's types have no permission type: the caller's own configuration refuses.
        { param: "model", type: "invalid_request_error" },
      );
      return new PlanRefusal(
        error,
        refusalOf(input, error, {
          requestedModel: requested,
          policyRefusal: [...reasons].join("; "),
        }),
      );
    },
  };
}

/**
 * A refusal (block, or a failed scan in block mode) is thrown as a `PlanRefusal` carrying its
 * metadata record, also the remote layer's from the deferred check a borderline verdict leaves;
 * `remote` reaches the organization's remote classifier (absent: the local verdict is final).
 */
export function guardrailRequestCheck(guardrail: Guardrail, remote?: RemoteTransport) {
  const refusal = (input: GuardrailInput & RefusalPlanInput, error: unknown, recorded = error) =>
    recorded instanceof GatewayError ? new PlanRefusal(error, refusalOf(input, recorded)) : error;
  const localCheck = (input: GuardrailInput & RefusalPlanInput): RemoteCheck | undefined => {
    try {
      return checkGuardrail(guardrail, input, remote);
    } catch (error) {
      throw refusal(input, error);
    }
  };
  return (input: GuardrailInput & RefusalPlanInput): RemoteCheck | undefined => {
    const remoteCheck = localCheck(input);
    if (!remoteCheck) return undefined;
    return async (signal) => {
      try {
        await remoteCheck(signal);
      } catch (error) {
        // A client that left while the classifier was asked: its text reached that provider,
        // so the request leaves its row (499, not billed) like any request that called out.
        throw refusal(
          input,
          error,
          signal.aborted && !(error instanceof GatewayError) ? clientClosed() : error,
        );
      }
    };
  };
}
