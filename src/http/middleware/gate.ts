/**
 * The gate: the admission checks in order (`admission_checks.ts`: auth, the key's expiry, the
 * organization's state, its policy, the snapshot, then each limit — rate, credit, the key's
 * budget), then the request's increment and its `RequestAdmission`. Rate buckets and the balance come from
 * `GateState` (a store read at most a second old plus this instance's own increments and
 * debits). The rate bucket increment counts in memory at once; it is written to the store with
 * the request's admission record before its first upstream call (`limits/admission.ts`), or
 * when the request ends without one. Nothing here waits for a write.
 *
 * A request refused after authentication that no other path settles leaves a zero-cost
 * metadata row with its error code (`billing/refused_rows.ts`): the gate's own 403, 429 and
 * 402 merged per key and minute, any later refusal its own row. Before authentication (401) there
 * is no organization, and nothing is written.
 */
import { budgetWindow } from "../../util/budget_period.ts";
import type { AuthenticatedKey } from "../../auth/api_key_authenticator.ts";
import type { MiddlewareHandler } from "hono";
import type { AppDeps } from "../../deps.ts";
import type { AppEnv } from "../context.ts";
import { GatewayError, unauthorized } from "../../errors.ts";
import { minuteOf } from "../../state/minute.ts";
import { errorMessage } from "../../log.ts";
import { rateName, type Snapshot } from "../../limits/gate_state.ts";
import type { QueueMark } from "../../limits/unsent_tally.ts";
import { setHeaders } from "./request_id.ts";
import { isAnswer } from "../answer.ts";
import { endpointOf, type RefusalReason, type RequestTrace } from "../../telemetry/telemetry.ts";
import { RequestAdmission } from "../../limits/admission.ts";
import { newRequestNotes } from "../../policy/request_notes.ts";
import { isRefusal, refusedRequestOf, rowEndpointOf } from "../refused_request.ts";
import type { RequestRecord } from "../../state/records.ts";
import type { EffectivePolicy } from "../../policy/effective_policy.ts";
import {
  authorization,
  insufficientCredits,
  KEY_CHECKS,
  keyBudgetExceeded,
  LIMIT_CHECKS,
  type LimitContext,
  policyUnavailable,
  snapshotFailed,
} from "./admission_checks.ts";

/** Until the rate check, first of the limit checks, sets the request's own. */
const NO_HEADERS: Record<string, string> = {};

/**
 * One gate per route: `routePath` is the Hono path it is mounted on, so the telemetry's endpoint
 * label is looked up once here, not per request (Hono's `c.req.routePath` maps its match list
 * on every read).
 */
export function gate(
  deps: AppDeps,
  options: { billed: boolean; routePath: string },
): MiddlewareHandler<AppEnv> {
  const endpoint = endpointOf(options.routePath);
  const rowEndpoint = rowEndpointOf(endpoint);
  const admit = admission(deps, { ...options, rowEndpoint });
  return async (c, next) => {
    const trace = deps.telemetry.beginRequest(endpoint);
    let status: number | undefined;
    let thrown: unknown;
    try {
      // Without a span there is nothing to run inside: no closure for `within`.
      if (trace.span === undefined) await admit(c, next, trace);
      else await deps.telemetry.within(trace, () => admit(c, next, trace));
    } catch (error) {
      status = error instanceof GatewayError ? error.status : 500;
      thrown = error;
      throw error;
    } finally {
      // A refusal after the gate (thrown, or rendered by the app's error handler on the way
      // back) that nothing settled leaves its row (counted in the metrics below, as before).
      const state = c.get("state");
      const refusal = thrown ?? c.error;
      if (state && rowEndpoint && !trace.settling && isRefusal(refusal)) {
        const who = { ...state, org: state.apiKey.org, keyId: state.apiKey.id };
        const refused = refusedRequestOf(who, rowEndpoint, state.requested, refusal, deps.now());
        deps.refusedRows.record(refused);
      }
      // A request that settles is counted from its record (a stream: when it ends), and its
      // credit hold goes with its debit; one that does not, here.
      const admission = state?.admission;
      // A request that never called out writes its rate increment now.
      admission?.countOnce();
      const start = c.get("request");
      const streams = isAnswer(start, c.res) ? start.answerStreams === true : isStream(c.res);
      const ended = status !== undefined || !streams;
      if (!trace.settling && ended) {
        deps.telemetry.endWithoutSettle(trace, status ?? c.res.status);
        admission?.end();
      }
    }
  };
}

function isStream(response: Response | undefined): boolean {
  return response?.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
}

/**
 * An admission whose route usually answers later than three commit intervals rides with the
 * next paced commit (`limits/admission.ts`): that commit lands long before the answer.
 */
const DEFER_AFTER_INTERVALS = 3;

function admission(
  deps: AppDeps,
  options: { billed: boolean; rowEndpoint: RequestRecord["endpoint"] | undefined },
) {
  const deferAfterMs = DEFER_AFTER_INTERVALS * deps.config.commitIntervalMs;
  return async (
    c: Parameters<MiddlewareHandler<AppEnv>>[0],
    next: () => Promise<void>,
    trace: RequestTrace,
  ) => {
    const start = c.get("request");
    const { requestId, startedAt } = start;
    // The checks that read the store are awaited here, not in async helpers of their own: no
    // further async frame and promise a request, and the view is taken in the turn the
    // snapshot arrives in.
    const apiKey = await deps.auth.authenticate(authorization(c.req.header("authorization")));
    if (!apiKey) throw unauthorized();
    for (const check of KEY_CHECKS) {
      const refusal = check.decide(apiKey, startedAt);
      if (!refusal) continue;
      // An authentication answer (401): no organization's row, as for an unknown key.
      if (check.reason === undefined) throw refusal;
      // Not bounded by the key's rate count (refused before it): its rows are merged per minute.
      throw gateRefusal(deps, check.reason, start, apiKey, options.rowEndpoint, refusal);
    }
    let policy: EffectivePolicy;
    try {
      policy = await deps.policies.policyOf(apiKey.org, apiKey.id);
    } catch (error) {
      throw policyUnavailable(deps, apiKey.id, error);
    }
    const notes = newRequestNotes();
    const minute = minuteOf(startedAt);
    // The key's budget in the period this request starts in (UTC boundaries).
    const budget = keyBudgetOf(apiKey, startedAt);
    let snapshot: Snapshot | undefined;
    try {
      snapshot = await deps.gate.snapshot(
        apiKey.id,
        apiKey.org,
        minute,
        startedAt,
        budget?.periodId,
      );
    } catch (error) {
      snapshotFailed(deps, apiKey.id, error);
    }
    // From here to the increment nothing awaits: concurrent requests see each other's counts.
    const limits: LimitContext = {
      apiKey,
      startedAt,
      billed: options.billed,
      budget,
      view: undefined,
      rateHeaders: NO_HEADERS,
    };
    const bucket = rateName(apiKey.id, minute);
    let markSent: QueueMark | undefined;
    // Decided and counted again when another isolate counted this key in between (the
    // increment is one compare-and-swap against every isolate's count: no two admit on one).
    while (markSent === undefined) {
      limits.view = snapshot && deps.gate.view(snapshot, apiKey.id, apiKey.org, budget);
      for (const check of LIMIT_CHECKS) {
        const refusal = check.decide(limits);
        if (refusal) {
          throw gateRefusal(deps, check.reason, start, apiKey, options.rowEndpoint, refusal);
        }
      }
      markSent = limits.view
        ? deps.unsentRequests.queueIfUnchanged(
          bucket,
          1,
          startedAt,
          apiKey.id,
          limits.view.rateSeen,
        )
        : deps.unsentRequests.queue(bucket, 1, startedAt, apiKey.id);
    }
    const { rateHeaders } = limits;
    const admission = requestAdmission(deps, {
      requestId,
      apiKey,
      minute,
      markSent,
      billed: options.billed,
      deferAfterMs,
      rateHeaders,
      budget,
    });
    c.set("state", {
      requestId,
      startedAt,
      apiKey,
      trace,
      rateHeaders,
      policy,
      notes,
      admission,
    });
    await next();
    // A route's answer carries them already (`http/answer.ts`); errors get them here.
    if (!isAnswer(start, c.res)) setHeaders(c, { ...rateHeaders, ...notes.headers });
  };
}

/** The key's budget in the period `startedAt` falls in, if the key has one. */
function keyBudgetOf(
  apiKey: Pick<AuthenticatedKey, "budget_micro_eur" | "budget_period">,
  startedAt: number,
): LimitContext["budget"] {
  if (!apiKey.budget_micro_eur || !apiKey.budget_period) return undefined;
  const window = budgetWindow(apiKey.budget_period, startedAt);
  return {
    limitMicroEur: BigInt(apiKey.budget_micro_eur),
    periodId: window.id,
    resetsAt: window.resetsAt,
  };
}

/**
 * The request's admission (the credit hold and the record written before the first upstream
 * call), with its rate increment, which counts in memory from now on.
 */
function requestAdmission(
  deps: AppDeps,
  request: {
    requestId: string;
    apiKey: { id: string; org: string };
    minute: number;
    markSent: QueueMark;
    billed: boolean;
    deferAfterMs: number;
    rateHeaders: Record<string, string>;
    budget: LimitContext["budget"];
  },
): RequestAdmission {
  const { apiKey, markSent, budget } = request;
  // The increment is written with the admission record before the first upstream call, or
  // when the request ends without one (admission.ts).
  return new RequestAdmission({
    gate: deps.gate,
    store: deps.store,
    instance: deps.instance,
    requestId: request.requestId,
    keyId: apiKey.id,
    org: apiKey.org,
    minute: request.minute,
    billed: request.billed,
    markSent,
    markSettled: markSent.settled,
    deferAfterMs: request.deferAfterMs,
    budget: budget && { limitMicroEur: budget.limitMicroEur, periodId: budget.periodId },
    refusal: (refused) => {
      if (refused === "budget" && budget) {
        deps.telemetry.refused("key_budget_exceeded");
        return keyBudgetExceeded(budget.resetsAt, request.rateHeaders);
      }
      deps.telemetry.refused("insufficient_credits");
      return insufficientCredits(request.rateHeaders);
    },
    onWriteError: (error) => {
      deps.counters.gateStoreFailures++;
      deps.log.warn("rate bucket write failed", {
        key_id: apiKey.id,
        reason: errorMessage(error),
      });
    },
  });
}

/**
 * A refusal of the gate itself, before the request counts against the key's rate: counted under
 * its check's reason, and its row merged with the key's others of that minute (a flood writes
 * at most two rows a minute).
 */
function gateRefusal(
  deps: AppDeps,
  reason: RefusalReason,
  start: { requestId: string; startedAt: number },
  apiKey: { id: string; org: string },
  endpoint: RequestRecord["endpoint"] | undefined,
  error: GatewayError,
): GatewayError {
  deps.telemetry.refused(reason);
  if (endpoint) {
    const { requestId, startedAt } = start;
    const who = { requestId, startedAt, org: apiKey.org, keyId: apiKey.id };
    const refused = refusedRequestOf(who, endpoint, undefined, error, deps.now());
    deps.refusedRows.recordCoalesced(refused);
  }
  return error;
}
