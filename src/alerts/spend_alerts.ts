/**
 * Spend alerts, evaluated on settle: every settled request with a cost is told here
 * (`observe`, synchronous: it only notes the organization), and the organization's thresholds
 * are checked in the background against its balance and today's spend — the store's figures
 * read at most every `refreshMs` per organization (off the request path: nothing a request
 * waits for reads the store here), plus this instance's debits not yet in them, counted
 * exactly as the gate counts them (`UnsentTally`). A threshold crossed is claimed in the store
 * under its episode (`alert_store.ts`), so each crossing is sent once whichever instance saw it
 * first, and then sent (`AlertSender`):
 *
 * - balance below X: episode `balance:<X>:<granted>` — a top-up (which raises `granted`) re-arms it;
 * - daily spend above Y: episode `day:<Y>:<YYYY-MM-DD>` (UTC) — once per day;
 * - key budgets at their shares (80 % and 100 % by default): `budget:<key>:<period start>:<p>`,
 *   checked for the keys a settle touched, through `BudgetView` (the per-key budgets).
 */
import type { Logger } from "../log.ts";
import { errorMessage } from "../log.ts";
import type { RequestRecord } from "../state/records.ts";
import type { AlertSettings, AlertStore } from "../state/alert_store.ts";
import type { OrgStore, RequestLogStore } from "../state/store.ts";
import type { UnsentTally } from "../limits/unsent_tally.ts";
import type { AlertEvent, AlertSender } from "./alert_sender.ts";

/** A key's budget as the alerts read it (from the gate's budget accounting). */
export interface BudgetStanding {
  keyId: string;
  keyName: string | null;
  budgetMicroEur: number;
  spentMicroEur: number;
  period: string;
  /** ISO times of the current period. */
  periodStart: string;
  resetsAt: string | null;
}

/** Where the alerts learn a key's budget standing (absent: no key budgets). */
export interface BudgetView {
  standing(keyId: string): Promise<BudgetStanding | undefined>;
}

export interface SpendAlertsOptions {
  alerts: AlertStore;
  orgs: Pick<OrgStore, "getOrg">;
  usage: Pick<RequestLogStore, "dailyUsage">;
  /** This instance's debits queued but not yet in a store read (the settler's). */
  unsentDebits: UnsentTally;
  sender: AlertSender;
  log: Logger;
  budgets?: BudgetView | undefined;
  now?: () => number;
  /** How old the store's balance and spend may be (ms) before an evaluation reads them again. */
  refreshMs?: number;
  /** How old an organization's settings may be (ms) before they are read again. */
  settingsMs?: number;
}

interface SpendView {
  at: number;
  day: string;
  granted: number;
  spent: number;
  daySpent: number;
  /** The tally's sent count when the read was issued. */
  mark: number;
}

interface OrgState {
  settings: AlertSettings | null;
  settingsAt: number;
  view: SpendView | undefined;
  /** Keys whose budget a settle touched since the last evaluation. */
  keys: Set<string>;
  running: Promise<void> | undefined;
  again: boolean;
}

const MAX_ORGS = 50_000;

export class SpendAlerts {
  readonly #orgs = new Map<string, OrgState>();
  readonly #now: () => number;
  readonly #refreshMs: number;
  readonly #settingsMs: number;

  constructor(private readonly o: SpendAlertsOptions) {
    this.#now = o.now ?? Date.now;
    this.#refreshMs = o.refreshMs ?? 5_000;
    this.#settingsMs = o.settingsMs ?? 30_000;
  }

  /** A request settled (its debit is queued): check its organization's thresholds soon. */
  observe(record: RequestRecord): void {
    if (record.cost_micro_eur <= 0) return;
    let state = this.#orgs.get(record.org);
    if (!state) {
      if (this.#orgs.size >= MAX_ORGS) this.#orgs.clear();
      state = {
        settings: null,
        settingsAt: -Infinity,
        view: undefined,
        keys: new Set(),
        running: undefined,
        again: false,
      };
      this.#orgs.set(record.org, state);
    }
    state.keys.add(record.key_id);
    if (state.running) {
      state.again = true;
      return;
    }
    state.running = this.#run(record.org, state);
  }

  /** Drops an organization's cached settings (they changed): the next evaluation reads them. */
  forget(org: string): void {
    const state = this.#orgs.get(org);
    if (state) state.settingsAt = -Infinity;
  }

  /** Resolves once every evaluation started so far has ended (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.#orgs.values()].flatMap((s) => s.running ? [s.running] : []);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  async #run(org: string, state: OrgState): Promise<void> {
    try {
      do {
        state.again = false;
        await this.#evaluate(org, state);
      } while (state.again);
    } catch (error) {
      this.o.log.warn("spend alert evaluation failed", { org, reason: errorMessage(error) });
    } finally {
      state.running = undefined;
    }
  }

  async #evaluate(org: string, state: OrgState): Promise<void> {
    const now = this.#now();
    if (now - state.settingsAt >= this.#settingsMs) {
      state.settings = (await this.o.alerts.getAlertSettings(org)) ?? null;
      state.settingsAt = now;
    }
    const settings = state.settings;
    const keys = [...state.keys];
    state.keys.clear();
    if (!settings || (!settings.webhook_url && !settings.email)) return;
    const day = new Date(now).toISOString().slice(0, 10);
    if (
      settings.balance_below_micro_eur !== null || settings.daily_spend_above_micro_eur !== null
    ) {
      const view = await this.#view(org, state, now, day);
      const unsent = Number(this.o.unsentDebits.unsentCount(org, view.mark));
      const balance = view.granted - view.spent - unsent;
      const below = settings.balance_below_micro_eur;
      if (below !== null && balance < below) {
        await this.#fire(settings, `balance:${below}:${view.granted}`, now, {
          type: "balance.below_threshold",
          summary: `the balance is below ${euro(below)}`,
          data: {
            organization: org,
            threshold_micro_eur: below,
            balance_micro_eur: balance,
          },
        });
      }
      const above = settings.daily_spend_above_micro_eur;
      const spent = view.daySpent + unsent;
      if (above !== null && spent > above) {
        await this.#fire(settings, `day:${above}:${day}`, now, {
          type: "spend.daily_above_threshold",
          summary: `today's spend is above ${euro(above)}`,
          data: { organization: org, day, threshold_micro_eur: above, spent_micro_eur: spent },
        });
      }
    }
    if (this.o.budgets && settings.key_budget_percents.length > 0) {
      for (const key of keys) await this.#budget(settings, key, now);
    }
  }

  async #budget(settings: AlertSettings, keyId: string, now: number): Promise<void> {
    const standing = await this.o.budgets!.standing(keyId);
    if (!standing || standing.budgetMicroEur <= 0) return;
    // The highest share reached is alerted; lower ones reached at the same time are not.
    const reached = settings.key_budget_percents.filter((p) =>
      standing.spentMicroEur * 100 >= standing.budgetMicroEur * p
    );
    const percent = reached.at(-1);
    if (percent === undefined) return;
    await this.#fire(
      settings,
      `budget:${keyId}:${standing.periodStart}:${percent}`,
      now,
      {
        type: "key_budget.threshold_reached",
        summary: `key ${standing.keyName ?? keyId} used ${percent} % of its budget`,
        data: {
          organization: settings.org,
          key_id: keyId,
          key_name: standing.keyName,
          percent,
          budget_micro_eur: standing.budgetMicroEur,
          spent_micro_eur: standing.spentMicroEur,
          period: standing.period,
          period_start: standing.periodStart,
          resets_at: standing.resetsAt,
        },
      },
    );
  }

  async #view(org: string, state: OrgState, now: number, day: string): Promise<SpendView> {
    const current = state.view;
    if (current && current.day === day && now - current.at < this.#refreshMs) return current;
    // The mark first: the reads below contain every debit sent before them.
    const mark = Number(this.o.unsentDebits.sentCount(org));
    const [view, usage] = await Promise.all([
      this.o.orgs.getOrg(org),
      this.o.usage.dailyUsage(org, day),
    ]);
    const next: SpendView = {
      at: now,
      day,
      granted: view?.granted_micro_eur ?? 0,
      spent: view?.spent_micro_eur ?? 0,
      daySpent: usage.cost_micro_eur ?? 0,
      mark,
    };
    state.view = next;
    return next;
  }

  async #fire(settings: AlertSettings, episode: string, now: number, event: AlertEvent) {
    if (!(await this.o.alerts.claimAlert(settings.org, episode, now))) return;
    this.o.log.info("spend alert", { org: settings.org, type: event.type });
    await this.o.sender.send(settings, event);
  }
}

/** micro-EUR as "EUR 12.34" (down to the micro-euro where it has one: "EUR 0.999999"), exactly. */
function euro(micro: number): string {
  const whole = Math.trunc(micro / 1_000_000);
  const fraction = String(micro % 1_000_000).padStart(6, "0").replace(/0{1,4}$/, "");
  return `EUR ${whole}.${fraction}`;
}
