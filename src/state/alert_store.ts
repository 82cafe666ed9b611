/**
 * The spend-alert area of the state: each organization's alert settings, the crossings already
 * alerted (so a crossing is sent once, whichever instance saw it first), and the delivery log.
 * A backend keeps these semantics:
 *
 * - `putAlertSettings` replaces the organization's whole settings record.
 * - `claimAlert(org, episode)` is true for the first caller only, across every instance: the
 *   episode names one crossing (`balance:<threshold>:<granted>`, `day:<threshold>:<YYYY-MM-DD>`,
 *   `budget:<key>:<period start>:<percent>`). Claims are kept for 40 days.
 * - Deliveries are listed per organization newest first (ids sort by time); `pendingDeliveries`
 *   lists those still being retried, oldest first, for a restarted instance to resume.
 * - Records hold no prompt or user content: amounts, ids, times, HTTP statuses.
 */

/** An organization's alert rules and where alerts go. */
export interface AlertSettings {
  org: string;
  /** Where signed webhooks go (https; http and local addresses only where allowed). */
  webhook_url: string | null;
  /**
   * The Standard Webhooks signing secret (`whsec_` + base64 of 32 random bytes): the gateway
   * needs it to sign, so it is stored; shown to the customer once, never listed again.
   */
  secret: string | null;
  /** Alert when the balance falls below this (micro-EUR); null: off. */
  balance_below_micro_eur: number | null;
  /** Alert when the organization's spend of one UTC day rises above this; null: off. */
  daily_spend_above_micro_eur: number | null;
  /** The share of a key's budget at which to alert (80 and 100 by default); empty: off. */
  key_budget_percents: number[];
  /** Where alerts are mailed (where the gateway has SMTP); null: no e-mail. */
  email: string | null;
  updated: string;
}

export type AlertEventType =
  | "balance.below_threshold"
  | "spend.daily_above_threshold"
  | "key_budget.threshold_reached"
  | "webhook.test";

/** One attempt to deliver an alert. */
export interface DeliveryAttempt {
  at: string;
  /** The receiver's HTTP status, or null when no answer came (timeout, refused connection). */
  status: number | null;
  /** Why it failed, in a few words (never the receiver's body). */
  error: string | null;
}

export interface AlertDelivery {
  /** The Standard Webhooks message id (`webhook-id`): the same on every retry. */
  id: string;
  org: string;
  created: string;
  type: AlertEventType;
  channel: "webhook" | "email";
  /** The event as sent (amounts and ids only). */
  body: string;
  status: "pending" | "delivered" | "failed";
  attempts: DeliveryAttempt[];
  /** When the next attempt is due while pending (epoch ms), else null. */
  next_attempt_at: number | null;
}

export interface AlertStore {
  getAlertSettings(org: string): Promise<AlertSettings | undefined>;
  putAlertSettings(settings: AlertSettings): Promise<void>;
  claimAlert(org: string, episode: string, at: number): Promise<boolean>;
  putDelivery(delivery: AlertDelivery): Promise<void>;
  listDeliveries(org: string, limit: number): Promise<AlertDelivery[]>;
  pendingDeliveries(limit: number): Promise<AlertDelivery[]>;
}

/** How long a claimed crossing is remembered (longer than a month's budget period). */
export const CLAIM_TTL_MS = 40 * 86_400_000;
