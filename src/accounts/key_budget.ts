/**
 * Per-key budgets, the rules the admin CLI and the dashboard share: a budget is a whole positive
 * number of micro-EUR per period (`day`, `week`, `month` on UTC boundaries, or `total`); a key's
 * standing is its spend in the current period against it. The gate enforces it
 * (`http/middleware/gate.ts`, 402 `key_budget_exceeded`).
 */
import { AccountError } from "./account_error.ts";
import type { ApiKeyStore, MeteringStore } from "../state/store.ts";
import type { ApiKeyRecord } from "../state/records.ts";
import { BUDGET_PERIODS, type BudgetPeriod, budgetWindow } from "../util/budget_period.ts";

export interface KeyBudgetSetting {
  budget_micro_eur: number;
  budget_period: BudgetPeriod;
}

/** A budget from its two inputs, checked (400 naming the field); null removes it. */
export function parseKeyBudget(
  amount: number | null | undefined,
  period: string | null | undefined,
): KeyBudgetSetting | null {
  if (amount === null || amount === undefined) return null;
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new AccountError(
      "invalid",
      "The budget must be a positive whole number of micro-EUR.",
      "budget_micro_eur",
    );
  }
  const p = period ?? "month";
  if (!(BUDGET_PERIODS as readonly string[]).includes(p)) {
    throw new AccountError(
      "invalid",
      `The budget period must be one of ${BUDGET_PERIODS.join(", ")}.`,
      "budget_period",
    );
  }
  return { budget_micro_eur: amount, budget_period: p as BudgetPeriod };
}

/** Sets or removes (null) a key's budget; gateways apply it within the key cache's delay. */
export async function setKeyBudget(
  store: ApiKeyStore,
  org: string | null,
  keyId: string,
  budget: KeyBudgetSetting | null,
): Promise<ApiKeyRecord> {
  const key = await store.getApiKey(keyId);
  if (!key || (org !== null && key.org !== org)) {
    throw new AccountError("not_found", `API key '${keyId}' does not exist.`);
  }
  if (key.revoked) throw new AccountError("invalid", `API key '${keyId}' is revoked.`, "id");
  const updated = await store.updateApiKey(keyId, {
    budget_micro_eur: budget?.budget_micro_eur ?? null,
    budget_period: budget?.budget_period ?? null,
  });
  if (!updated) throw new AccountError("not_found", `API key '${keyId}' does not exist.`);
  return updated;
}

export interface BudgetStanding {
  budget_micro_eur: number;
  budget_period: BudgetPeriod;
  spent_micro_eur: number;
  period_start: string;
  /** When the period ends (null for `total`). */
  resets_at: string | null;
}

/** The key's spend in its current budget period, or null when it has no budget. */
export async function keyBudgetStanding(
  store: Pick<MeteringStore, "readKeySpend">,
  key: ApiKeyRecord,
  now: number,
): Promise<BudgetStanding | null> {
  if (!key.budget_micro_eur || !key.budget_period) return null;
  const window = budgetWindow(key.budget_period, now);
  const spent = await store.readKeySpend(key.id, window.id);
  return {
    budget_micro_eur: key.budget_micro_eur,
    budget_period: key.budget_period,
    spent_micro_eur: Number(spent),
    period_start: new Date(window.start).toISOString(),
    resets_at: window.resetsAt === null ? null : new Date(window.resetsAt).toISOString(),
  };
}
