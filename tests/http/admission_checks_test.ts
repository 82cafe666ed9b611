/**
 * The gate's limit checks one by one, on a gate view as the snapshot gives it (the spec: a
 * per-key RPM over a sliding window of two 1-minute buckets, excess 429 `rate_limit_exceeded`;
 * a billed request with the organization's balance at or below zero 402 `insufficient_credits`).
 * A key of a suspended organization is 403 `organization_suspended` (README, operator actions);
 * a key past its `expires_at` is 401 `api_key_expired`, a key whose budget in its period is used
 * up 402 `key_budget_exceeded` on a billed route (README, docs/costs.md).
 * The whole gate is tested over HTTP in tests/limits/; these pin each check's own decision.
 */
import assert from "node:assert/strict";
import {
  creditLeft,
  KEY_CHECKS,
  keyBudgetLeft,
  keyExpiry,
  LIMIT_CHECKS,
  type LimitContext,
  organizationState,
  rateLimit,
} from "../../src/http/middleware/admission_checks.ts";
import type { AuthenticatedKey } from "../../src/auth/api_key_authenticator.ts";

/** 10 s into a minute: the previous bucket weighs 5/6. */
const AT = Date.UTC(2026, 11, 2, 12, 0, 10);

function limits(
  view: LimitContext["view"],
  rpm = 10,
  billed = true,
  budget?: LimitContext["budget"],
): LimitContext {
  return {
    apiKey: { id: "key_1", org: "org_1", rpm },
    startedAt: AT,
    billed,
    budget,
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
  assert.deepEqual(LIMIT_CHECKS.map((c) => c.reason), [
    "rate_limit",
    "insufficient_credits",
    "key_budget_exceeded",
  ]);
});

/** A daily budget of 1 EUR, its period ending at the next midnight UTC. */
const DAY_BUDGET = {
  limitMicroEur: 1_000_000n,
  periodId: "d:2026-12-02",
  resetsAt: Date.UTC(2026, 11, 3),
};

Deno.test("key budget — used up in its period on a billed route: 402 key_budget_exceeded naming the reset", () => {
  for (const left of [0n, -3n]) {
    const view = { rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 5n, budgetLeftMicroEur: left };
    const ctx = limits(view, 10, true, DAY_BUDGET);
    ctx.rateHeaders = { "x-ratelimit-limit-requests": "10" };
    const refusal = keyBudgetLeft.decide(ctx);
    assert.equal(refusal?.status, 402);
    assert.equal(refusal?.code, "key_budget_exceeded");
    assert.match(refusal?.message ?? "", /2026-12-03T00:00:00\.000Z/);
    assert.equal(refusal?.headers?.["x-ratelimit-limit-requests"], "10");
  }
  const total = { ...DAY_BUDGET, periodId: "t", resetsAt: null };
  const view = { rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 5n, budgetLeftMicroEur: 0n };
  assert.equal(keyBudgetLeft.decide(limits(view, 10, true, total))?.code, "key_budget_exceeded");
  assert.equal(keyBudgetLeft.reason, "key_budget_exceeded");
});

Deno.test("key budget — budget left, no budget, an unbilled route or a failed store read pass", () => {
  const view = (left?: bigint) => ({
    rateCurrent: 0,
    ratePrevious: 0,
    balanceMicroEur: 5n,
    ...(left === undefined ? {} : { budgetLeftMicroEur: left }),
  });
  assert.equal(keyBudgetLeft.decide(limits(view(1n), 10, true, DAY_BUDGET)), undefined);
  assert.equal(keyBudgetLeft.decide(limits(view(0n), 10, true, undefined)), undefined);
  assert.equal(keyBudgetLeft.decide(limits(view(0n), 10, false, DAY_BUDGET)), undefined);
  assert.equal(keyBudgetLeft.decide(limits(undefined, 10, true, DAY_BUDGET)), undefined);
  // A snapshot of another period than the request's says nothing of its budget.
  assert.equal(keyBudgetLeft.decide(limits(view(), 10, true, DAY_BUDGET)), undefined);
});

Deno.test("limit checks — credit before the budget: an empty balance and a used-up budget is insufficient_credits", () => {
  const view = { rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 0n, budgetLeftMicroEur: 0n };
  const ctx = limits(view, 10, true, DAY_BUDGET);
  const first = LIMIT_CHECKS.map((check) => check.decide(ctx)).find((r) => r !== undefined);
  assert.equal(first?.code, "insufficient_credits");
});

Deno.test("key expiry — from expires_at on the key is 401 api_key_expired, before it and without one it passes", () => {
  const key = (expires_at: string | null) =>
    ({ id: "key_1", org: "org_1", orgSuspended: false, expires_at }) as AuthenticatedKey;
  const at = new Date(AT).toISOString();
  const refusal = keyExpiry.decide(key(at), AT);
  assert.equal(refusal?.status, 401);
  assert.equal(refusal?.code, "api_key_expired");
  assert.equal(keyExpiry.decide(key(new Date(AT - 1).toISOString()), AT)?.code, "api_key_expired");
  assert.equal(keyExpiry.decide(key(new Date(AT + 1).toISOString()), AT), undefined);
  assert.equal(keyExpiry.decide(key(null), AT), undefined);
  // Answered as authentication: no refusal label, so no gate count and no row.
  assert.equal(keyExpiry.reason, undefined);
});

Deno.test("key checks — expiry before suspension: an expired key of a suspended organization is 401", () => {
  const key = {
    id: "key_1",
    org: "org_1",
    orgSuspended: true,
    expires_at: new Date(AT - 1).toISOString(),
  } as AuthenticatedKey;
  const first = KEY_CHECKS.map((check) => check.decide(key, AT)).find((r) => r !== undefined);
  assert.equal(first?.code, "api_key_expired");
});

Deno.test("organization state — a key of a suspended organization is 403 organization_suspended, others pass", () => {
  const key = (orgSuspended: boolean) =>
    ({ id: "key_1", org: "org_1", orgSuspended }) as AuthenticatedKey;
  const refusal = organizationState.decide(key(true), AT);
  assert.equal(refusal?.status, 403);
  assert.equal(refusal?.code, "organization_suspended");
  assert.equal(organizationState.decide(key(false), AT), undefined);
  assert.deepEqual(KEY_CHECKS.map((c) => c.reason), [undefined, "organization_suspended"]);
});
