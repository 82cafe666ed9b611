/**
 * Auth → rate limit → credit gate, in that order. Rate buckets and the balance come from
 * `GateState` (a store read at most a second old plus this instance's own increments and
 * debits). The rate bucket increment is queued to the group committer; nothing here waits
 * for a write.
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

export function gate(deps: AppDeps, options: { billed: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { requestId, startedAt } = c.get("request");
    const authorization = c.req.header("authorization");
    if (authorization === undefined || authorization.trim() === "") throw missingApiKey();
    const apiKey = await deps.auth.authenticate(authorization);
    if (!apiKey) throw unauthorized();

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
    if (snapshot) {
      const view = deps.gate.view(snapshot, apiKey.id, apiKey.org);
      rate = decideRate(apiKey.rpm, view.rateCurrent, view.ratePrevious, startedAt);
      const rateHeaders = rateLimitHeaders(apiKey.rpm, rate);
      if (!rate.allowed) {
        throw new GatewayError(
          429,
          "rate_limit_exceeded",
          `Rate limit of ${apiKey.rpm} requests per minute exceeded for this API key.`,
          { headers: { "retry-after": String(rate.retryAfterSeconds), ...rateHeaders } },
        );
      }
      if (options.billed && view.balanceMicroEur <= 0n) {
        throw new GatewayError(
          402,
          "insufficient_credits",
          "The organization's credit balance is used up; top up to continue.",
          { headers: rateHeaders },
        );
      }
    }
    const markSent = deps.unsentRequests.queue(rateName(apiKey.id, minute), 1n, startedAt);
    deps.store.countRequest(apiKey.id, minute, markSent).catch((error) => {
      markSent();
      deps.counters.gateStoreFailures++;
      deps.log.warn("rate bucket write failed", { key_id: apiKey.id, reason: errorMessage(error) });
    });

    c.set("state", { requestId, startedAt, apiKey });
    await next();
    setHeaders(c, rateLimitHeaders(apiKey.rpm, rate));
  };
}
