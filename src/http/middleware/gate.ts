/**
 * Auth → rate limit → credit gate, in that order, with one store read (`readGate`) for the
 * rate buckets and the credit counters together. The rate bucket increment is queued to the
 * group committer and counted in memory until durable; nothing here waits for a write.
 */
import type { MiddlewareHandler } from "hono";
import type { AppDeps } from "../../deps.ts";
import type { AppEnv } from "../context.ts";
import { GatewayError, unauthorized } from "../errors.ts";
import { decideRate, minuteOf } from "../../limits/rate_limiter.ts";
import { errorMessage } from "../../log.ts";
import type { GateSnapshot } from "../../state/records.ts";
import { timeOrderedId } from "../../ids.ts";

export function gate(deps: AppDeps, options: { billed: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const startedAt = deps.now();
    const apiKey = await deps.auth.authenticate(c.req.header("authorization"));
    if (!apiKey) throw unauthorized();

    const minute = minuteOf(startedAt);
    // Increments not yet sent to the store are invisible to the read below: count them from
    // memory (a sent increment is in the read; see PendingCounts).
    const mark = deps.pending.sentMark(apiKey.id, minute);
    let snapshot: GateSnapshot | undefined;
    try {
      snapshot = await deps.store.readGate(apiKey.id, apiKey.org, minute);
    } catch (error) {
      deps.counters.gateStoreFailures++;
      deps.log.warn("gate store read failed; letting the request pass (fail-open)", {
        key_id: apiKey.id,
        reason: errorMessage(error),
      });
    }
    if (snapshot) {
      const current = snapshot.rateCurrent + deps.pending.unsentSince(apiKey.id, minute, mark);
      const rate = decideRate(apiKey.rpm, current, snapshot.ratePrevious, startedAt);
      if (!rate.allowed) {
        throw new GatewayError(
          429,
          "rate_limit_exceeded",
          `Rate limit of ${apiKey.rpm} requests per minute exceeded for this API key.`,
          { headers: { "retry-after": String(rate.retryAfterSeconds) } },
        );
      }
      if (options.billed && snapshot.balanceMicroEur <= 0n) {
        throw new GatewayError(
          402,
          "insufficient_credits",
          "The organization's credit balance is used up; top up to continue.",
        );
      }
    }
    const markSent = deps.pending.admit(apiKey.id, minute);
    deps.store.countRequest(apiKey.id, minute, markSent).catch((error) => {
      markSent();
      deps.counters.gateStoreFailures++;
      deps.log.warn("rate bucket write failed", { key_id: apiKey.id, reason: errorMessage(error) });
    });

    c.set("state", { requestId: timeOrderedId("req_", startedAt), startedAt, apiKey });
    await next();
  };
}
