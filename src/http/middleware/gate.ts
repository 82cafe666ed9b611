/**
 * Auth → rate limit → credit gate, in that order. Rate buckets and the balance come from
 * `GateState` (a store read at most a second old plus this instance's own increments and
 * debits). The rate bucket increment counts in memory at once; it is written to the store with
 * the request's admission record before its first upstream call (`limits/admission.ts`), or
 * when the request ends without one. Nothing here waits for a write.
 *
 * A request refused after authentication that no other path settles leaves a zero-cost
 * metadata row with its error code (`billing/refused_rows.ts`): the gate's own 429 and 402
 * merged per key and minute, any later refusal its own row. Before authentication (401) there
 * is no organization, and nothing is written.
 */
import type { MiddlewareHandler } from "hono";
import type { AppDeps } from "../../deps.ts";
import type { AppEnv } from "../context.ts";
import { GatewayError, missingApiKey, unauthorized } from "../../errors.ts";
import { decideRate, type RateDecision } from "../../limits/rate_limiter.ts";
import { minuteOf } from "../../state/minute.ts";
import { errorMessage } from "../../log.ts";
import { rateName, type Snapshot } from "../../limits/gate_state.ts";
import { rateLimitHeaders } from "../rate_limit_headers.ts";
import { setHeaders } from "./request_id.ts";
import { isAnswer } from "../answer.ts";
import { endpointOf, type RequestTrace } from "../../telemetry/telemetry.ts";
import { RequestAdmission } from "../../limits/admission.ts";
import { newRequestNotes } from "../../policy/request_notes.ts";
import type { EffectivePolicy } from "../../policy/effective_policy.ts";
import { isRefusal, refusedRequestOf, rowEndpointOf } from "../refused_request.ts";
import type { RequestRecord } from "../../state/records.ts";

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
    const authorization = c.req.header("authorization");
    if (authorization === undefined || authorization.trim() === "") throw missingApiKey();
    const apiKey = await deps.auth.authenticate(authorization);
    if (!apiKey) throw unauthorized();

    // The key's effective policy; a store failure with nothing cached refuses (fail closed).
    // Awaited here, not in a helper of its own: no further async frame and promise a request.
    let policy: EffectivePolicy;
    try {
      policy = await deps.policies.policyOf(apiKey.org, apiKey.id);
    } catch (error) {
      throw policyUnavailable(deps, apiKey.id, error);
    }
    const notes = newRequestNotes();

    const minute = minuteOf(startedAt);
    let snapshot: Snapshot | undefined;
    try {
      snapshot = await deps.gate.snapshot(apiKey.id, apiKey.org, minute, startedAt);
    } catch (error) {
      deps.counters.gateStoreFailures++;
      deps.log.warn("gate store read failed; letting the request pass (fail-open)", {
        key_id: apiKey.id,
        reason: errorMessage(error),
      });
    }
    // From here to the increment nothing awaits: concurrent requests see each other's counts.
    let rate: RateDecision | undefined;
    let rateHeaders: Record<string, string>;
    if (snapshot) {
      const view = deps.gate.view(snapshot, apiKey.id, apiKey.org);
      rate = decideRate(apiKey.rpm, view.rateCurrent, view.ratePrevious, startedAt);
      rateHeaders = rateLimitHeaders(apiKey.rpm, rate);
      if (!rate.allowed) {
        deps.telemetry.refused("rate_limit");
        throw gateRefusal(
          deps,
          { requestId, startedAt, org: apiKey.org, keyId: apiKey.id },
          options.rowEndpoint,
          new GatewayError(
            429,
            "rate_limit_exceeded",
            `Rate limit of ${apiKey.rpm} requests per minute exceeded for this API key.`,
            { headers: { "retry-after": String(rate.retryAfterSeconds), ...rateHeaders } },
          ),
        );
      }
      if (options.billed && view.balanceMicroEur <= 0n) {
        deps.telemetry.refused("insufficient_credits");
        throw gateRefusal(
          deps,
          { requestId, startedAt, org: apiKey.org, keyId: apiKey.id },
          options.rowEndpoint,
          insufficientCredits(rateHeaders),
        );
      }
    } else rateHeaders = rateLimitHeaders(apiKey.rpm, undefined);
    const markSent = deps.unsentRequests.queue(
      rateName(apiKey.id, minute),
      1,
      startedAt,
      apiKey.id,
    );
    // The increment is written with the admission record before the first upstream call, or
    // when the request ends without one (admission.ts); it counts in memory from now on.
    const admission = new RequestAdmission({
      gate: deps.gate,
      store: deps.store,
      instance: deps.instance,
      requestId,
      keyId: apiKey.id,
      org: apiKey.org,
      minute,
      billed: options.billed,
      markSent,
      markSettled: markSent.settled,
      deferAfterMs,
      refusal: () => {
        deps.telemetry.refused("insufficient_credits");
        return insufficientCredits(rateHeaders);
      },
      onWriteError: (error) => {
        deps.counters.gateStoreFailures++;
        deps.log.warn("rate bucket write failed", {
          key_id: apiKey.id,
          reason: errorMessage(error),
        });
      },
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

/**
 * A refusal of the gate itself, before the request counts against the key's rate: its row is
 * merged with the key's others of that minute (a flood writes at most two rows a minute).
 */
function gateRefusal(
  deps: AppDeps,
  who: { requestId: string; startedAt: number; org: string; keyId: string },
  endpoint: RequestRecord["endpoint"] | undefined,
  error: GatewayError,
): GatewayError {
  if (endpoint) {
    const refused = refusedRequestOf(who, endpoint, undefined, error, deps.now());
    deps.refusedRows.recordCoalesced(refused);
  }
  return error;
}

/** The spec's 402: the balance (less what requests in flight hold) is used up. */
function insufficientCredits(headers: Record<string, string>): GatewayError {
  return new GatewayError(
    402,
    "insufficient_credits",
    "The organization's credit balance is used up; top up to continue.",
    { headers },
  );
}

/** The policy read failed (logged): the spec's 503, retry in a second. */
function policyUnavailable(deps: AppDeps, keyId: string, error: unknown): GatewayError {
  deps.log.warn("organization policy read failed; refusing the request (fail-closed)", {
    key_id: keyId,
    reason: errorMessage(error),
  });
  return new GatewayError(
    503,
    "policy_unavailable",
    "The organization's policy could not be read; retry shortly.",
    { headers: { "retry-after": "1" } },
  );
}
