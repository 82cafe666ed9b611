/**
 * Delivers alerts: a JSON event (`{type, timestamp, data}`, amounts and ids only, never a
 * prompt) posted to the organization's webhook and signed the Standard Webhooks way
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` with the organization's `whsec_` secret; the `standardwebhooks`
 * package signs), and mailed where the gateway has a mailer and the organization an address.
 * A delivery that fails (no 2xx within 10 s, or no answer) is tried again after 5 s, 30 s,
 * 2 min, 10 min, 30 min and 1 h — about 1 h 43 min in all — with the same `webhook-id` (receivers
 * drop repeats by it), then marked failed. Every attempt is written to the delivery log.
 */
import { Webhook } from "standardwebhooks";
import type { Logger } from "../log.ts";
import { errorMessage } from "../log.ts";
import { timeOrderedId } from "../util/ids.ts";
import type {
  AlertDelivery,
  AlertEventType,
  AlertSettings,
  AlertStore,
} from "../state/alert_store.ts";
import { resolvesLocally } from "./webhook_target.ts";
import { openStored, type SecretBox } from "../util/secret_box.ts";
import type { Mailer } from "../mail/mailer.ts";

/** What the gateway mails with (nodemailer over `SOVRA_SMTP_URL`, where configured). */
export type AlertMailer = Pick<Mailer, "send">;

export interface AlertEvent {
  type: AlertEventType;
  /** One line for humans (the e-mail's subject). */
  summary: string;
  data: Record<string, string | number | null>;
}

export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  30_000,
  120_000,
  600_000,
  1_800_000,
  3_600_000,
];
const ATTEMPT_TIMEOUT_MS = 10_000;
/** A pending delivery this long past due was left by a stopped instance: another resumes it. */
const ABANDONED_AFTER_MS = 5 * 60_000;

/** The purpose the signing secrets' key is derived for (`SOVRA_SECRET_KEY`). */
export const WEBHOOK_SECRETS = "webhook secrets";

export interface AlertSenderOptions {
  store: AlertStore;
  log: Logger;
  /** http and local addresses allowed as targets (`SOVRA_WEBHOOK_ALLOW_LOCAL`). */
  allowLocal: boolean;
  mailer?: AlertMailer | undefined;
  fetch?: typeof fetch;
  now?: () => number;
  retryDelaysMs?: readonly number[];
  /** Opens signing secrets sealed with `SOVRA_SECRET_KEY` (`util/secret_box.ts`). */
  secretBox?: SecretBox | undefined;
}

export class AlertSender {
  readonly #store: AlertStore;
  readonly #log: Logger;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #delays: readonly number[];
  #timers = new Map<ReturnType<typeof setTimeout>, string>();
  #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  constructor(private readonly options: AlertSenderOptions) {
    this.#store = options.store;
    this.#log = options.log;
    this.#fetch = options.fetch ?? fetch;
    this.#now = options.now ?? Date.now;
    this.#delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  }

  /** Sends `event` on every channel the settings name (webhook with a secret, e-mail). */
  send(settings: AlertSettings, event: AlertEvent): Promise<AlertDelivery[]> {
    const at = this.#now();
    const body = JSON.stringify({
      type: event.type,
      timestamp: new Date(at).toISOString(),
      data: event.data,
    });
    const deliveries: AlertDelivery[] = [];
    const base = { org: settings.org, created: new Date(at).toISOString(), type: event.type, body };
    if (settings.webhook_url && settings.secret) {
      deliveries.push({
        ...base,
        id: timeOrderedId("msg_", at),
        channel: "webhook",
        status: "pending",
        attempts: [],
        next_attempt_at: at,
      });
    }
    if (settings.email && this.options.mailer) {
      deliveries.push({
        ...base,
        id: timeOrderedId("msg_", at),
        channel: "email",
        status: "pending",
        attempts: [],
        next_attempt_at: at,
      });
    }
    return this.#track(Promise.all(deliveries.map((d) => this.#attempt(d, settings, event))))
      .then(() => deliveries);
  }

  /**
   * At start: deliveries another instance left pending (it stopped before its retries ended)
   * are resumed, each by one instance only.
   */
  async resume(settingsOf: (org: string) => Promise<AlertSettings | undefined>): Promise<number> {
    const now = this.#now();
    let resumed = 0;
    for (const delivery of await this.#store.pendingDeliveries(200)) {
      const due = delivery.next_attempt_at ?? now;
      if (now - due < ABANDONED_AFTER_MS) continue;
      const claim = `resume:${delivery.id}:${delivery.attempts.length}`;
      if (!(await this.#store.claimAlert(delivery.org, claim, now))) continue;
      const settings = await settingsOf(delivery.org);
      if (!settings) continue;
      resumed++;
      void this.#track(this.#attempt(delivery, settings, undefined));
    }
    return resumed;
  }

  /** Resolves when every attempt started so far has ended (not the retries still waiting). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** Stops waiting retries (shutdown): their deliveries stay pending for a later resume. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.keys()) clearTimeout(timer);
    this.#timers.clear();
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    work.finally(() => this.#inFlight.delete(work)).catch(() => {});
    return work;
  }

  async #attempt(
    delivery: AlertDelivery,
    settings: AlertSettings,
    event: AlertEvent | undefined,
  ): Promise<void> {
    const at = this.#now();
    let outcome: { status: number | null; error: string | null };
    try {
      outcome = delivery.channel === "webhook"
        ? await this.#post(delivery, settings, at)
        : await this.#mail(delivery, settings, event);
    } catch (error) {
      outcome = { status: null, error: errorMessage(error).slice(0, 200) };
    }
    delivery.attempts.push({ at: new Date(at).toISOString(), ...outcome });
    const ok = outcome.error === null;
    const retry = this.#delays[delivery.attempts.length - 1];
    if (ok) {
      delivery.status = "delivered";
      delivery.next_attempt_at = null;
    } else if (retry === undefined) {
      delivery.status = "failed";
      delivery.next_attempt_at = null;
      this.#log.warn("alert delivery failed", {
        org: delivery.org,
        delivery: delivery.id,
        attempts: delivery.attempts.length,
      });
    } else {
      delivery.next_attempt_at = at + retry;
    }
    try {
      await this.#store.putDelivery(delivery);
    } catch (error) {
      this.#log.warn("alert delivery log write failed", {
        delivery: delivery.id,
        reason: errorMessage(error),
      });
    }
    if (delivery.status === "pending" && !this.#closed) this.#later(delivery, settings, event);
  }

  #later(delivery: AlertDelivery, settings: AlertSettings, event: AlertEvent | undefined): void {
    const wait = Math.max(0, (delivery.next_attempt_at ?? 0) - this.#now());
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#track(this.#attempt(delivery, settings, event));
    }, wait);
    Deno.unrefTimer(timer);
    this.#timers.set(timer, delivery.id);
  }

  async #post(
    delivery: AlertDelivery,
    settings: AlertSettings,
    at: number,
  ): Promise<{ status: number | null; error: string | null }> {
    const url = new URL(settings.webhook_url!);
    if (!this.options.allowLocal && await resolvesLocally(url.hostname)) {
      return { status: null, error: "the webhook's host resolves to a local address" };
    }
    // Standard Webhooks: the timestamp in whole seconds, signed with the id and the body.
    const timestamp = new Date(Math.floor(at / 1000) * 1000);
    const secret = await openStored(this.options.secretBox, settings.secret!, settings.org);
    const signature = new Webhook(secret).sign(delivery.id, timestamp, delivery.body);
    const response = await this.#fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Sovra-Webhooks/1",
        "webhook-id": delivery.id,
        "webhook-timestamp": String(timestamp.getTime() / 1000),
        "webhook-signature": signature,
      },
      body: delivery.body,
      redirect: "manual",
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return response.ok
      ? { status: response.status, error: null }
      : { status: response.status, error: `the receiver answered ${response.status}` };
  }

  async #mail(
    delivery: AlertDelivery,
    settings: AlertSettings,
    event: AlertEvent | undefined,
  ): Promise<{ status: number | null; error: string | null }> {
    const parsed = JSON.parse(delivery.body) as { type: string; data: Record<string, unknown> };
    const summary = event?.summary ?? parsed.type;
    const lines = Object.entries(parsed.data).map(([k, v]) => `${k}: ${v}`);
    await this.options.mailer!.send({
      to: settings.email!,
      subject: `Sovra alert: ${summary}`,
      text: `${summary}\n\n${lines.join("\n")}\n\nDelivery ${delivery.id}.\n`,
    });
    return { status: null, error: null };
  }
}
