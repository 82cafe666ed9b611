/**
 * An organization's spend-alert settings and their rules, shared by the dashboard and the admin
 * CLI: thresholds are whole micro-EUR or off, key-budget shares whole percents from 1 to 100,
 * the webhook an https URL (http and local addresses only where the operator allows them), and
 * the signing secret a Standard Webhooks `whsec_` secret made here, shown once.
 */
import { invalidRequest } from "../errors.ts";
import type { AlertSettings } from "../state/alert_store.ts";
import { webhookUrlProblem } from "./webhook_target.ts";

/** The key-budget shares alerted when budgets alert at all. */
export const DEFAULT_BUDGET_PERCENTS = [80, 100];

/** A change to the settings: each field given replaces the stored one. */
export interface AlertSettingsChange {
  webhook_url?: string | null | undefined;
  balance_below_micro_eur?: number | null | undefined;
  daily_spend_above_micro_eur?: number | null | undefined;
  key_budget_percents?: number[] | undefined;
  email?: string | null | undefined;
}

/** The settings an organization starts with: nothing alerted, nowhere to send. */
export function defaultAlertSettings(org: string, now: number): AlertSettings {
  return {
    org,
    webhook_url: null,
    secret: null,
    balance_below_micro_eur: null,
    daily_spend_above_micro_eur: null,
    key_budget_percents: [...DEFAULT_BUDGET_PERCENTS],
    email: null,
    updated: new Date(now).toISOString(),
  };
}

function amount(value: number | null, field: string): number | null {
  if (value === null) return null;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw invalidRequest(
      `${field} must be a whole number of micro-EUR (0 or more), or null.`,
      field,
    );
  }
  return value;
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** The settings after `change`, checked; throws a 400 naming the field. */
export function changedAlertSettings(
  current: AlertSettings,
  change: AlertSettingsChange,
  options: { now: number; allowLocal: boolean },
): AlertSettings {
  const next: AlertSettings = { ...current, updated: new Date(options.now).toISOString() };
  if (change.webhook_url !== undefined) {
    const url = change.webhook_url === null || change.webhook_url.trim() === ""
      ? null
      : change.webhook_url.trim();
    const problem = url === null ? undefined : webhookUrlProblem(url, options.allowLocal);
    if (problem) throw invalidRequest(problem, "webhook_url");
    next.webhook_url = url;
  }
  if (change.balance_below_micro_eur !== undefined) {
    next.balance_below_micro_eur = amount(
      change.balance_below_micro_eur,
      "balance_below_micro_eur",
    );
  }
  if (change.daily_spend_above_micro_eur !== undefined) {
    next.daily_spend_above_micro_eur = amount(
      change.daily_spend_above_micro_eur,
      "daily_spend_above_micro_eur",
    );
  }
  if (change.key_budget_percents !== undefined) {
    const percents = [...new Set(change.key_budget_percents)].sort((a, b) => a - b);
    if (percents.some((p) => !Number.isInteger(p) || p < 1 || p > 100)) {
      throw invalidRequest(
        "key_budget_percents must be whole percents from 1 to 100 (e.g. [80, 100]).",
        "key_budget_percents",
      );
    }
    next.key_budget_percents = percents;
  }
  if (change.email !== undefined) {
    const email = change.email === null || change.email.trim() === "" ? null : change.email.trim();
    if (email !== null && (email.length > 254 || !EMAIL.test(email))) {
      throw invalidRequest("email must be one e-mail address, or null.", "email");
    }
    next.email = email;
  }
  return next;
}

/** A new signing secret: `whsec_` and 32 random bytes in base64 (Standard Webhooks' form). */
export function newSigningSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The settings as listings show them: never the secret, only whether there is one. */
export type PublicAlertSettings = Omit<AlertSettings, "secret"> & { has_secret: boolean };

export function publicAlertSettings(settings: AlertSettings): PublicAlertSettings {
  const { secret, ...rest } = settings;
  return { ...rest, has_secret: secret !== null };
}
