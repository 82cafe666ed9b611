/**
 * The gate's limit checks one by one, on a gate view as the snapshot gives it (the spec: a
 * per-key RPM over a sliding window of two 1-minute buckets, excess 429 `rate_limit_exceeded`;
 * a billed request with the organization's balance at or below zero 402 `insufficient_credits`).
 * A key of a suspended organization is 403 `organization_suspended` (README, operator actions).
 * The whole gate is tested over HTTP in tests/limits/; these pin each check's own decision.
 */
import assert from "node:assert/strict";
import {
  creditLeft,
  KEY_CHECKS,
  LIMIT_CHECKS,
  type LimitContext,
  organizationState,
  rateLimit,
} from "../../src/http/middleware/admission_checks.ts";
import type { AuthenticatedKey } from "../../src/auth/api_key_authenticator.ts";

/** 10 s into a minute: the previous bucket weighs 5/6. */
const AT = Date.UTC(2026, 11, 2, 12, 0, 10);

function limits(view: LimitContext["view"], rpm = 10, billed = true): LimitContext {
  return {
    apiKey: { id: "key_1", org: "org_1", rpm },
    startedAt: AT,
    billed,
    view,
    rateHeaders: {},
  };
}

Deno.test("rate limit — under the key's rpm the request passes and the headers say what is left", () => {
  const ctx = limits({ rateCurrent: 3, ratePrevious: 0, balanceMicroEur: 1n });
  assert.equal(rateLimit.decide(ctx), undefined);
  assert.equal(ctx.rateHeaders["x-ratelimit-limit-requests"], "10");
  assert.equal(ctx.rateHeaders["x-ratelimit-remaining-requests"], "6");
});

Deno.test("rate limit — the sliding window counts the previous minute's share: 429 rate_limit_exceeded", () => {
  // 6 previous × 5/6 + 4 current = 9 → a tenth fits under 10 rpm, an eleventh does not.
  assert.equal(
    rateLimit.decide(limits({ rateCurrent: 4, ratePrevious: 6, balanceMicroEur: 1n })),
    undefined,
  );
  const ctx = limits({ rateCurrent: 5, ratePrevious: 6, balanceMicroEur: 1n });
  const refusal = rateLimit.decide(ctx);
  assert.equal(refusal?.status, 429);
  assert.equal(refusal?.code, "rate_limit_exceeded");
  assert.ok(Number(refusal?.headers?.["retry-after"]) >= 1);
  assert.equal(refusal?.headers?.["x-ratelimit-limit-requests"], "10");
  assert.equal(rateLimit.reason, "rate_limit");
});

Deno.test("rate limit — without a snapshot (store read failed) the request passes with the limit header only", () => {
  const ctx = limits(undefined);
  assert.equal(rateLimit.decide(ctx), undefined);
  assert.deepEqual(ctx.rateHeaders, { "x-ratelimit-limit-requests": "10" });
});

Deno.test("credit — a billed request with the balance at or below zero is 402 insufficient_credits", () => {
  for (const balance of [0n, -5n]) {
    const ctx = limits({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: balance });
    ctx.rateHeaders = { "x-ratelimit-limit-requests": "10" };
    const refusal = creditLeft.decide(ctx);
    assert.equal(refusal?.status, 402);
    assert.equal(refusal?.code, "insufficient_credits");
    assert.equal(refusal?.headers?.["x-ratelimit-limit-requests"], "10");
  }
  assert.equal(
    creditLeft.decide(limits({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 1n })),
    undefined,
  );
  assert.equal(creditLeft.reason, "insufficient_credits");
});

Deno.test("credit — an unbilled route and a failed store read pass whatever the balance", () => {
  assert.equal(
    creditLeft.decide(limits({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 0n }, 10, false)),
    undefined,
  );
  assert.equal(creditLeft.decide(limits(undefined)), undefined);
});

Deno.test("limit checks — rate first: an exhausted key on an empty balance is told 429, not 402", () => {
  const ctx = limits({ rateCurrent: 10, ratePrevious: 0, balanceMicroEur: 0n });
  const first = LIMIT_CHECKS.map((check) => check.decide(ctx)).find((r) => r !== undefined);
  assert.equal(first?.status, 429);
  assert.deepEqual(LIMIT_CHECKS.map((c) => c.reason), ["rate_limit", "insufficient_credits"]);
});

Deno.test("organization state — a key of a suspended organization is 403 organization_suspended, others pass", () => {
  const key = (orgSuspended: boolean) =>
    ({ id: "key_1", org: "org_1", orgSuspended }) as AuthenticatedKey;
  const refusal = organizationState.decide(key(true));
  assert.equal(refusal?.status, 403);
  assert.equal(refusal?.code, "organization_suspended");
  assert.equal(organizationState.decide(key(false)), undefined);
  assert.deepEqual(KEY_CHECKS.map((c) => c.reason), ["organization_suspended"]);
});
