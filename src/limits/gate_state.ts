/**
 * What the gate knows per API key — its rate buckets and its organization's balance — from
 * a store read taken at most `refreshMs` ago, plus this instance's own increments and debits
 * counted exactly (see UnsentTally). The hot path then reads the store about once a second
 * per key instead of once per request. Other processes' writes show within `refreshMs`;
 * a balance that looks used up is always re-read first, so a top-up applies at once. While
 * the store fails, the last snapshot (at most `staleMs` old) keeps serving its balance; the
 * rate limit fails open (spec).
 *
 * Tail latency: a snapshot is renewed in the background once it is 60–90 % of
 * `refreshMs` old (the point is random per snapshot, so many keys' reads do not align), and
 * requests keep using it meanwhile; only a snapshot past `refreshMs` or of an earlier minute
 * makes a request wait for the store (KV reads queue behind an in-flight group commit).
 *
 * Several isolates of one process (`SOVRA_WORKERS`) count as one instance: each adds to its
 * read what the others had queued and not made visible when the read was issued
 * (`SharedCounters`), and holds credit against every isolate's holds, so the instance's bounds
 * (a key's rpm, an organization's overdraw of less than one hold) hold per process.
 */
import type { Store } from "../state/store.ts";
import type { UnsentTally } from "./unsent_tally.ts";
import { CreditHolds, type HoldRefusal } from "./credit_holds.ts";
import { budgetName } from "../util/budget_period.ts";
import { addWhole, type Whole, whole } from "./whole.ts";
import type { Entry, SharedCounters } from "./shared_counters.ts";

export interface GateView {
  rateCurrent: number;
  ratePrevious: number;
  balanceMicroEur: bigint;
  /** What the key's budget has left in its period (absent: no budget asked for). */
  budgetLeftMicroEur?: bigint;
  /**
   * The key's queued total over every isolate that `rateCurrent` counts (absent: no other
   * isolate, or a stale snapshot): the increment is counted only while it is unchanged.
   */
  rateSeen?: bigint;
}

/** A key's budget for this request: its limit and the period it is counted in. */
export interface KeyBudget {
  limitMicroEur: bigint;
  /** `budgetWindow(...).id` of the request's start. */
  periodId: string;
}

export interface Snapshot {
  minute: number;
  /** `rateName` of the key and `minute`: the tally's name of this minute's bucket. */
  rateKey: string;
  fetchedAt: number;
  rateCurrent: number;
  ratePrevious: number;
  rateMark: Whole;
  balance: bigint;
  debitMark: Whole;
  /** What the other isolates had made visible of the key's increments and the org's debits. */
  othersRateMark: bigint;
  othersDebitMark: bigint;
  /** Their places in the process's table (absent: this isolate is the instance). */
  rateEntry?: Entry;
  debitEntry?: Entry;
  /** The budget period read (absent: none) and the key's spend in it, with its marks. */
  budgetPeriodId?: string;
  keySpent: bigint;
  keyDebitMark: Whole;
  othersKeyDebitMark: bigint;
  keyDebitEntry?: Entry;
  /** Age (ms) from which a request renews this snapshot in the background. */
  renewAfterMs: number;
  /** Served from an old read while the store fails: the rate limit fails open. */
  stale?: true;
}

export const rateName = (keyId: string, minute: number) => `${keyId}:${minute}`;

export class GateState {
  #snapshots = new Map<string, Snapshot>();
  /** One store read in flight per key: concurrent requests at a refresh share it. */
  #refreshing = new Map<string, Promise<Snapshot>>();
  /** After a failed read, no store read before this time (the store is likely away). */
  #quietUntil = -Infinity;

  constructor(
    private readonly store: Pick<Store, "readGate" | "away">,
    private readonly requests: UnsentTally,
    private readonly debits: UnsentTally,
    private readonly refreshMs: number,
    private readonly staleMs = 0,
    /** Credit held by this instance's requests in flight (subtracted from the balance). */
    readonly holds = new CreditHolds(),
    /** The other isolates' counts (absent: this isolate is the instance). */
    private readonly shared?: SharedCounters,
  ) {}

  /**
   * A snapshot fresh enough for this request. Apply it with `view` in the same synchronous
   * step as the decision and the increment, or concurrent requests could all pass on one count.
   */
  async snapshot(
    keyId: string,
    orgId: string,
    minute: number,
    now: number,
    budgetPeriodId?: string,
  ): Promise<Snapshot> {
    let snapshot = this.#snapshots.get(keyId);
    if (
      !snapshot || snapshot.minute !== minute || now - snapshot.fetchedAt >= this.refreshMs ||
      snapshot.budgetPeriodId !== budgetPeriodId
    ) {
      snapshot = await this.#orStale(
        keyId,
        minute,
        now,
        () => this.#sharedRefresh(keyId, orgId, minute, now, budgetPeriodId),
      );
    } else if (
      now - snapshot.fetchedAt >= snapshot.renewAfterMs && now >= this.#quietUntil &&
      !this.store.away?.()
    ) {
      // Ahead of expiry: this request goes on with the current snapshot.
      this.#sharedRefresh(keyId, orgId, minute, now, budgetPeriodId).catch(() => {
        // The request that finds the snapshot expired reads again (and handles the failure).
      });
    }
    if (snapshot.fetchedAt !== now && snapshot.balance <= this.#unsentDebits(snapshot, orgId)) {
      // Before refusing, make sure no top-up has landed since the snapshot.
      snapshot = await this.#orStale(
        keyId,
        minute,
        now,
        () => this.#refresh(keyId, orgId, minute, now, budgetPeriodId),
      );
    }
    return snapshot;
  }

  /** Runs the store read; when it fails, the last snapshot if it is recent enough. */
  async #orStale(
    keyId: string,
    minute: number,
    now: number,
    read: () => Promise<Snapshot>,
  ): Promise<Snapshot> {
    const last = this.#snapshots.get(keyId);
    const usable = last !== undefined && now - last.fetchedAt < this.staleMs;
    if (usable && (now < this.#quietUntil || this.store.away?.())) {
      return this.#stale(last, keyId, minute);
    }
    try {
      return await read();
    } catch (error) {
      this.#quietUntil = now + Math.min(1_000, this.staleMs);
      if (!usable) throw error;
      return this.#stale(last, keyId, minute);
    }
  }

  #stale(last: Snapshot, keyId: string, minute: number): Snapshot {
    const rateKey = rateName(keyId, minute);
    return {
      ...last,
      minute,
      rateKey,
      rateCurrent: 0,
      ratePrevious: 0,
      rateMark: this.requests.sentCount(rateKey),
      stale: true,
    };
  }

  /**
   * The counts now: the snapshot plus what this instance queued that it cannot contain; the
   * balance less the credit its requests in flight hold.
   */
  view(s: Snapshot, keyId: string, orgId: string, budget?: KeyBudget): GateView {
    // This isolate's bucket name is kept in the snapshot (`rateKey`); the others count by key.
    const balanceMicroEur = s.balance - BigInt(this.#pending(s, orgId));
    const left = budget && s.budgetPeriodId === budget.periodId
      ? {
        budgetLeftMicroEur: budget.limitMicroEur - s.keySpent -
          BigInt(
            addWhole(this.#unsentKeyDebits(s, keyId), this.holds.heldCount(budgetName(keyId))),
          ),
      }
      : {};
    if (s.stale) return { rateCurrent: 0, ratePrevious: 0, balanceMicroEur, ...left };
    let rateCurrent = s.rateCurrent + Number(this.requests.unsentCount(s.rateKey, s.rateMark));
    if (!this.shared) {
      return { rateCurrent, ratePrevious: s.ratePrevious, balanceMicroEur, ...left };
    }
    const entry = s.rateEntry ?? keyId;
    const rateSeen = this.shared.queuedTotal(entry);
    rateCurrent += Number(this.shared.othersPending(entry, s.othersRateMark, rateSeen));
    return { rateCurrent, ratePrevious: s.ratePrevious, balanceMicroEur, rateSeen, ...left };
  }

  /**
   * Holds `amount` for a request about to call a provider, unless the credit its organization
   * has left after the holds of the requests already in flight is used up (false: refuse with
   * 402). The request's own hold does not count against it, so a request alone is admitted
   * whenever the balance is above zero, as the spec says; synchronous, like the rate decision.
   * Without a snapshot (the store failed at the gate) the hold is placed and the request passes.
   */
  tryHold(keyId: string, orgId: string, requestId: string, amount: bigint | number): boolean {
    return this.tryHoldWithin(keyId, orgId, requestId, amount) === undefined;
  }

  /**
   * `tryHold`, and against the key's budget the same way: held unless the key's period spend,
   * its debits not yet in the read and the holds of its other requests in flight reach the
   * budget (a request alone is admitted while the budget has anything left). Undefined when
   * held, else what refused.
   */
  tryHoldWithin(
    keyId: string,
    orgId: string,
    requestId: string,
    amount: bigint | number,
    budget?: KeyBudget,
  ): HoldRefusal | undefined {
    const snapshot = this.#snapshots.get(keyId);
    if (!snapshot) {
      this.holds.hold(requestId, orgId, amount);
      return undefined;
    }
    // The holds are read first, then the debits: a settle elsewhere queues its debit before it
    // releases its hold, so no credit is missed between the two.
    const counted = budget && snapshot.budgetPeriodId === budget.periodId;
    return this.holds.tryHoldWithin(
      requestId,
      orgId,
      amount,
      (held) => snapshot.balance > addWhole(this.#unsentDebits(snapshot, orgId), held),
      counted
        ? {
          name: budgetName(keyId),
          fits: (held) =>
            budget.limitMicroEur >
              snapshot.keySpent + BigInt(addWhole(this.#unsentKeyDebits(snapshot, keyId), held)),
        }
        : undefined,
    );
  }

  /** The key's debits queued since the snapshot's read (this isolate's and the others'). */
  #unsentKeyDebits(s: Snapshot, keyId: string): Whole {
    return this.#unsentOf(budgetName(keyId), s.keyDebitMark, s.keyDebitEntry, s.othersKeyDebitMark);
  }

  /**
   * What the balance read cannot show yet: debits queued since it, in micro-EUR (a number while
   * exact; a bigint compared with it is compared exactly, nothing converted), this isolate's and
   * the others'.
   */
  #unsentDebits(s: Snapshot, orgId: string): Whole {
    return this.#unsentOf(orgId, s.debitMark, s.debitEntry, s.othersDebitMark);
  }

  /** A name's debits queued since a read's marks: this isolate's, and the others'. */
  #unsentOf(name: string, mark: Whole, entry: Entry | undefined, othersMark: bigint): Whole {
    const own = this.debits.unsentCount(name, mark);
    if (!this.shared) return own;
    const others = this.shared.othersPending(entry ?? name, othersMark);
    return others === 0n ? own : addWhole(own, whole(others));
  }

  /** Unsent debits plus what requests in flight hold: the balance less this is what is left. */
  #pending(s: Snapshot, orgId: string): Whole {
    return addWhole(this.#unsentDebits(s, orgId), this.holds.heldCount(orgId));
  }

  #sharedRefresh(
    keyId: string,
    orgId: string,
    minute: number,
    now: number,
    budgetPeriodId?: string,
  ): Promise<Snapshot> {
    const id = `${keyId}:${minute}:${budgetPeriodId ?? ""}`;
    let pending = this.#refreshing.get(id);
    if (!pending) {
      pending = this.#refresh(keyId, orgId, minute, now, budgetPeriodId).finally(() => {
        this.#refreshing.delete(id);
      });
      this.#refreshing.set(id, pending);
    }
    return pending;
  }

  async #refresh(
    keyId: string,
    orgId: string,
    minute: number,
    now: number,
    budgetPeriodId?: string,
  ): Promise<Snapshot> {
    // Marks first: the read below is issued synchronously inside readGate.
    const rateKey = rateName(keyId, minute);
    const rateMark = this.requests.sentCount(rateKey);
    const debitMark = this.debits.sentCount(orgId);
    const budget = budgetName(keyId);
    const keyDebitMark = this.debits.sentCount(budget);
    const rateEntry = this.shared?.entry(keyId);
    const debitEntry = this.shared?.entry(orgId);
    const keyDebitEntry = budgetPeriodId === undefined ? undefined : this.shared?.entry(budget);
    const othersRateMark = rateEntry ? this.shared!.othersVisible(rateEntry) : 0n;
    const othersDebitMark = debitEntry ? this.shared!.othersVisible(debitEntry) : 0n;
    const othersKeyDebitMark = keyDebitEntry ? this.shared!.othersVisible(keyDebitEntry) : 0n;
    const read = await this.store.readGate(keyId, orgId, minute, budgetPeriodId);
    const snapshot: Snapshot = {
      minute,
      rateKey,
      fetchedAt: now,
      rateCurrent: read.rateCurrent,
      ratePrevious: read.ratePrevious,
      rateMark,
      balance: read.balanceMicroEur,
      debitMark,
      othersRateMark,
      othersDebitMark,
      ...(rateEntry ? { rateEntry, debitEntry: debitEntry! } : {}),
      ...(budgetPeriodId === undefined ? {} : { budgetPeriodId }),
      keySpent: read.keySpentMicroEur ?? 0n,
      keyDebitMark,
      othersKeyDebitMark,
      ...(keyDebitEntry ? { keyDebitEntry } : {}),
      renewAfterMs: this.refreshMs * (0.6 + 0.3 * Math.random()),
    };
    if (this.#snapshots.size > 100_000) this.#snapshots.clear();
    this.#snapshots.set(keyId, snapshot);
    return snapshot;
  }
}
