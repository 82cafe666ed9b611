/**
 * The routing plan as the pipeline runs it: planning decides and writes nothing, so what it
 * refused (a `PlanRefusal`: the organization's policy, the guardrail) leaves its metadata row
 * here, and so does what a check it deferred refuses (a borderline verdict's remote classifier).
 */
import { planRoutes } from "../routing/plan_routes.ts";
import type { DeferredCheck, PlanInput, PlannedRequest, RoutePlan } from "../routing/route_plan.ts";
import { refusalSettled } from "./refusal_settle.ts";
import type { PipelineDeps } from "./pipeline_deps.ts";

export function planRequest<P extends PlannedRequest>(
  deps: Pick<PipelineDeps, "routing" | "settler">,
  input: PlanInput<P>,
): RoutePlan<P["request"]> {
  try {
    return planRoutes(input, deps.routing);
  } catch (error) {
    throw refusalSettled(deps.settler, error);
  }
}

/** Awaits the plan's deferred checks in order; the first refusal is thrown (its row written). */
export async function runDeferred(
  deps: Pick<PipelineDeps, "settler">,
  checks: readonly DeferredCheck[],
  clientSignal: AbortSignal,
): Promise<void> {
  for (const check of checks) {
    try {
      await check(clientSignal);
    } catch (error) {
      throw refusalSettled(deps.settler, error);
    }
  }
}
