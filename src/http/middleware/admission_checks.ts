/**
 * The gate's admission checks, in the order they run (`gate.ts`):
 *
 * 1. the API key (`authorization`: 401 without one; 401 for an unknown one);
 * 2. `KEY_CHECKS` — what the key's lookup says: its expiry passed (401 `api_key_expired`), its
 *    organization suspended (403);
 * 3. the key's effective organization policy (`policyUnavailable`: 503 when the store fails
 *    with nothing cached: fail closed);
 * 4. the snapshot of the key's and organization's counts (`snapshotFailed`: a store failure
 *    lets the request pass: fail open);
 * 5. `LIMIT_CHECKS` — the limits, each deciding on that snapshot: the key's rate (429), the
 *    organization's credit (402), the key's budget in its period (402 `key_budget_exceeded`).
 *    A new per-key limit is one entry there plus its store field.
 *
 * Steps 1, 3 and 4 read the store and are awaited by the gate itself (`gate.ts` says why); the
 * limit checks are synchronous: from the snapshot to the request's increment nothing awaits,
 * so concurrent requests see each other's counts.
 */
import { expiredApiKey, GatewayError, missingApiKey } from "../../errors.ts";
import { errorMessage } from "../../log.ts";
import { decideRate } from "../../limits/rate_limiter.ts";
import type { GateView, KeyBudget } from "../../limits/gate_state.ts";
import type { ApiKeyRecord } from "../../state/records.ts";
import type { RefusalReason } from "../../telemetry/telemetry.ts";
import type { AppDeps } from "../../deps.ts";
import { rateLimitHeaders } from "../rate_limit_headers.ts";
import { suspendedOrganization } from "../../auth/organization_suspended.ts";
import type { AuthenticatedKey } from "../../auth/api_key_authenticator.ts";

/** The `authorization` header, or the spec's 401 `missing_api_key` without one. */
export function authorization(header: string | undefined): string {
  if (header === undefined || header.trim() === "") throw missingApiKey();
  return header;
}

/** A check of what the key's lookup brought (no store read of its own). Synchronous. */
export interface KeyCheck {
  /**
   * The telemetry's refusal label, and the refusal leaves its merged row. Absent: the answer is
   * the authentication's own (a 401, like an unknown key's): not counted, no row.
   */
  reason?: RefusalReason;
  /** `startedAt`: epoch milliseconds when the request arrived. */
  decide(key: AuthenticatedKey, startedAt: number): GatewayError | undefined;
}

/**
 * A key past its `expires_at` (a set expiry or the end of a rotation's grace period): 401
 * `api_key_expired`, answered as authentication (no row, not counted as a gate refusal).
 */
export const keyExpiry: KeyCheck = {
  decide(key, startedAt) {
    if (!key.expires_at || Date.parse(key.expires_at) > startedAt) return undefined;
    return expiredApiKey(key.expires_at);
  },
};

/** A key of an organization its operator suspended: 403 `organization_suspended`. */
export const organizationState: KeyCheck = {
  reason: "organization_suspended",
  decide: (key) => suspendedOrganization(key),
};

/** In order: the expiry first (an expired key is refused as authentication). */
export const KEY_CHECKS: readonly KeyCheck[] = [keyExpiry, organizationState];

/**
 * The gate's store read for the key's counts failed: counted and logged, and the request
 * passes (the gate awaits the read itself, see `gate.ts`).
 */
export function snapshotFailed(
  deps: Pick<AppDeps, "counters" | "log">,
  keyId: string,
  error: unknown,
): void {
  deps.counters.gateStoreFailures++;
  deps.log.warn("gate store read failed; letting the request pass (fail-open)", {
    key_id: keyId,
    reason: errorMessage(error),
  });
}

/** What the limit checks decide on; `rateHeaders` is set by the rate check, first of them. */
export interface LimitContext {
  apiKey: Pick<ApiKeyRecord, "id" | "org" | "rpm">;
  /** Epoch milliseconds when the request arrived. */
  startedAt: number;
  /** Whether the route is billed (credit and the key's budget apply). */
  billed: boolean;
  /**
   * The key's budget in the period the request starts in, with when that period ends (epoch
   * ms, UTC; null for a total budget); undefined when the key has none.
   */
  budget: (KeyBudget & { resetsAt: number | null }) | undefined;
  /** The counts now; undefined when the store read failed (every limit lets it pass). */
  view: GateView | undefined;
  /** The rate-limit headers every answer carries, the refusals' included. */
  rateHeaders: Record<string, string>;
}

export interface LimitCheck {
  /** The telemetry's refusal label. */
  reason: RefusalReason;
  /** The refusal, or undefined to let the request on. Synchronous (see above). */
  decide(limits: LimitContext): GatewayError | undefined;
}

/** The key's requests per minute (`limits/rate_limiter.ts`): 429 with `retry-after`. */
export const rateLimit: LimitCheck = {
  reason: "rate_limit",
  decide(limits) {
    const { apiKey, view } = limits;
    if (!view) {
      limits.rateHeaders = rateLimitHeaders(apiKey.rpm, undefined);
      return undefined;
    }
    const rate = decideRate(apiKey.rpm, view.rateCurrent, view.ratePrevious, limits.startedAt);
    limits.rateHeaders = rateLimitHeaders(apiKey.rpm, rate);
    if (rate.allowed) return undefined;
    return new GatewayError(
      429,
      "rate_limit_exceeded",
      `Rate limit of ${apiKey.rpm} requests per minute exceeded for this API key.`,
      { headers: { "retry-after": String(rate.retryAfterSeconds), ...limits.rateHeaders } },
    );
  },
};

/** The organization's credit on a billed route: 402 once the balance is used up. */
export const creditLeft: LimitCheck = {
  reason: "insufficient_credits",
  decide(limits) {
    if (!limits.billed || !limits.view || limits.view.balanceMicroEur > 0n) return undefined;
    return insufficientCredits(limits.rateHeaders);
  },
};

/**
 * The key's budget on a billed route: 402 `key_budget_exceeded` once its spend in the period
 * (with what its requests in flight hold) reached the budget.
 */
export const keyBudgetLeft: LimitCheck = {
  reason: "key_budget_exceeded",
  decide(limits) {
    const { budget, view } = limits;
    if (!limits.billed || !budget || !view || (view.budgetLeftMicroEur ?? 1n) > 0n) {
      return undefined;
    }
    return keyBudgetExceeded(budget.resetsAt, limits.rateHeaders);
  },
};

/** In order: the rate check first (it sets the headers the others' refusals carry). */
export const LIMIT_CHECKS: readonly LimitCheck[] = [rateLimit, creditLeft, keyBudgetLeft];

/** The spec's 402: the balance (less what requests in flight hold) is used up. */
export function insufficientCredits(headers: Record<string, string>): GatewayError {
  return new GatewayError(
    402,
    "insufficient_credits",
    "The organization's credit balance is used up; top up to continue.",
    { headers },
  );
}

/**
 * 402 `key_budget_exceeded`: the key's spend in its budget period (with what its requests in
 * flight hold) reached its budget; the message names when the period ends (UTC).
 */
export function keyBudgetExceeded(
  resetsAt: number | null,
  headers: Record<string, string>,
): GatewayError {
  const when = resetsAt === null
    ? "Its budget has no period (total): raise the budget to continue."
    : `It resets at ${new Date(resetsAt).toISOString()}.`;
  return new GatewayError(
    402,
    "key_budget_exceeded",
    `This API key's budget is used up. ${when}`,
    { headers },
  );
}

/** The policy read failed (logged): the spec's 503, retry in a second. */
export function policyUnavailable(
  deps: Pick<AppDeps, "log">,
  keyId: string,
  error: unknown,
): GatewayError {
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
