/**
 * Embeddings, transcription and speech through the routing plan (speech never falls back:
 * its plan keeps one route), then one settle with what was consumed.
 */
import type { Model } from "../catalog/schema.ts";
import type { ProviderAdapter, UpstreamCall } from "../providers/adapter.ts";
import { UpstreamFailure } from "../providers/upstream_failure.ts";
import type { Caller, PlannedRequest } from "../routing/route_plan.ts";
import { type RouteSuccess, tryRoutes } from "../routing/try_routes.ts";
import { logAttemptFailure, observeAttempts } from "./chat_call.ts";
import {
  type Consumption,
  settleFailure,
  settleInAdmission,
  settleRequest,
} from "./settle_request.ts";
import type { PipelineDeps } from "./pipeline_deps.ts";
import { admitUpstream } from "./admission_estimate.ts";
import { answerAfterCommit, settlesInAdmission, untilAdmitted } from "./admission_wait.ts";
import { planRequest } from "./plan_request.ts";

type NonChatRequest = Exclude<PlannedRequest, { endpoint: "chat" | "responses" }>;

export interface NonChatContext {
  deps: PipelineDeps;
  /** The catalog model the client named. */
  model: Model;
  caller: Caller;
  endpoint: NonChatRequest["endpoint"];
  clientSignal: AbortSignal;
  user: string | undefined;
  /** What the request will consume when known before the call (measured audio seconds). */
  held?: Consumption;
}

const METHOD = {
  embeddings: "embeddings",
  transcriptions: "transcription",
  speech: "speech",
} as const satisfies Record<NonChatRequest["endpoint"], keyof ProviderAdapter>;

/**
 * `request` is the endpoint's request (`ctx.endpoint` says which); `run` calls the adapter;
 * `consumed` measures the answer. The call always settles: what was consumed on success, a
 * zero-cost row when a provider was reached and failed.
 */
export async function callNonChat<T>(
  ctx: NonChatContext,
  request: NonChatRequest["request"],
  run: (adapter: ProviderAdapter, call: UpstreamCall) => Promise<T>,
  consumed: (value: T) => Consumption | Promise<Consumption>,
): Promise<RouteSuccess<T>> {
  const planned = { endpoint: ctx.endpoint, request } as NonChatRequest;
  // No deferred checks: the guardrail, the only hook that defers one, scans chat kinds only.
  const plan = planRequest(ctx.deps, {
    ...planned,
    caller: ctx.caller,
    catalog: ctx.deps.catalog.current,
    model: ctx.model,
  });
  const inCommit = settlesInAdmission(ctx.deps.config);
  admitUpstream(
    ctx.caller,
    planned,
    plan.candidates,
    {
      requestedModel: ctx.model.id,
      user: ctx.user,
      stream: false,
    },
    ctx.held,
    undefined,
    inCommit,
  );
  const method = METHOD[ctx.endpoint];
  let lastTried: RouteSuccess<undefined> | undefined;
  let served: RouteSuccess<T>;
  try {
    served = await tryRoutes(plan.candidates, (candidate) => {
      const { route } = candidate;
      const adapter = ctx.deps.adapters[route.dialect];
      if (!adapter || !adapter[method]) {
        throw new UpstreamFailure(
          "unavailable",
          `The '${route.dialect}' dialect has no ${method} support.`,
        );
      }
      return run(adapter, { route, signal: ctx.clientSignal });
    }, {
      signal: ctx.clientSignal,
      metrics: ctx.deps.metrics,
      observe: observeAttempts(ctx.deps, ctx.caller),
      onFailure: (route, attempts, failure) => {
        lastTried = { value: undefined, route, fallbacks: attempts - 1, dropped: [] };
        logAttemptFailure(ctx.deps, ctx.caller.requestId, route, failure);
      },
    });
  } catch (error) {
    settleFailure(ctx.deps, settlementOf(ctx, lastTried), error, ctx.clientSignal);
    throw error;
  }
  // No answer before the admission record, or the settle in its place, is durable (a crash
  // from here on is still billed), and no wait without a bound: a hung commit is the store's
  // 500, settled as such at cost 0.
  const settlement = settlementOf(ctx, served);
  const used = measured(consumed, served.value);
  // The admission's commit not sent yet: the settle takes the record's place in it.
  const settled = used instanceof Promise || !inCommit
    ? undefined
    : settleInAdmission(ctx.deps, { ...settlement, status: 200, consumed: used });
  if (settled) {
    await answerAfterCommit(ctx.deps, settled, settlement, ctx.clientSignal);
    return served;
  }
  try {
    await untilAdmitted(ctx.caller.admission, ctx.deps.config.streamIdleMs, ctx.clientSignal);
  } catch (error) {
    settleFailure(ctx.deps, settlement, error, ctx.clientSignal);
    throw error;
  }
  // An estimate still running is handed over unawaited: settleRequest writes the row even
  // when it fails.
  settleRequest(ctx.deps, { ...settlement, status: 200, consumed: used });
  return served;
}

/** What the answer consumed: known now, or a measurement still running (a throw: its failure). */
function measured<T>(
  consumed: (value: T) => Consumption | Promise<Consumption>,
  value: T,
): Consumption | Promise<Consumption> {
  try {
    return consumed(value);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The settlement fields of this request; the caller adds status and consumption. */
function settlementOf(ctx: NonChatContext, served: RouteSuccess<unknown> | undefined) {
  return {
    caller: ctx.caller,
    endpoint: ctx.endpoint,
    requestedModel: ctx.model.id,
    user: ctx.user,
    served,
    stream: false,
  };
}
