/**
 * Credit held by requests in flight, per organization. A request holds the
 * most it may cost before its first upstream call; the hold is released when its debit is
 * queued (the settle) or when it ends without one. The gate's balance is the balance minus
 * every hold of this instance, so concurrent requests cannot all spend the same credit.
 *
 * Amounts are whole micro-EUR kept as numbers while exact (`whole.ts`: bigints past 2^53, so a
 * huge hold beside small ones adds and releases exactly); `heldBy` and `total` give bigints.
 */
import { addWhole, subtractWhole, type Whole, whole } from "./whole.ts";
import type { SharedCounters } from "./shared_counters.ts";

/**
 * One hold as the other isolates count it: at most 2^53 µEUR (a balance never exceeds that, so a
 * larger hold refuses the same requests), and the holds beside it stay within 64 bits.
 */
const SHARED_MAX = BigInt(Number.MAX_SAFE_INTEGER);
const sharedAmount = (amount: Whole): bigint => {
  const big = BigInt(amount);
  return big > SHARED_MAX ? SHARED_MAX : big;
};

interface Hold {
  org: string;
  amount: Whole;
  /** The key budget's name (`budgetName`) the hold also counts against, if the key has one. */
  budget?: string;
}

/** Why a hold was not placed: the organization's credit or the key's budget is used up. */
export type HoldRefusal = "balance" | "budget";

export class CreditHolds {
  #byRequest = new Map<string, Hold>();
  #byOrg = new Map<string, Whole>();

  /**
   * `shared`: the process's counters, where every isolate's holds add up (`heldCount` is then
   * the process's, and `tryHold` decides against all of them at once).
   */
  constructor(private readonly shared?: SharedCounters) {}

  /** Holds `amount` for the request (replacing an earlier hold of the same request). */
  hold(requestId: string, org: string, amount: bigint | number): void {
    this.release(requestId);
    const held = whole(amount);
    this.shared?.hold(org, sharedAmount(held));
    this.#record(requestId, org, held);
  }

  /**
   * Holds `amount` for the request unless `fits(held)` refuses, given what the organization's
   * requests hold now; against the other isolates' holds in one atomic step.
   */
  tryHold(
    requestId: string,
    org: string,
    amount: bigint | number,
    fits: (held: Whole) => boolean,
  ): boolean {
    return this.tryHoldWithin(requestId, org, amount, fits) === undefined;
  }

  /**
   * `tryHold`, and with `budget` against the key's budget too (its holds counted under
   * `budget.name`, `budget.fits` deciding on them): the budget is held first, then the
   * organization's credit, the budget's hold taken back if the credit refuses. Undefined when
   * held, else what refused.
   */
  tryHoldWithin(
    requestId: string,
    org: string,
    amount: bigint | number,
    fits: (held: Whole) => boolean,
    budget?: { name: string; fits: (held: Whole) => boolean },
  ): HoldRefusal | undefined {
    this.release(requestId);
    const held = whole(amount);
    if (this.shared) {
      const big = sharedAmount(held);
      if (budget && !this.shared.tryHold(budget.name, big, (all) => budget.fits(whole(all)))) {
        return "budget";
      }
      if (!this.shared.tryHold(org, big, (all) => fits(whole(all)))) {
        if (budget) this.shared.release(budget.name, big);
        return "balance";
      }
    } else {
      if (budget && !budget.fits(this.heldCount(budget.name))) return "budget";
      if (!fits(this.heldCount(org))) return "balance";
    }
    this.#record(requestId, org, held, budget?.name);
    return undefined;
  }

  #record(requestId: string, org: string, held: Whole, budget?: string): void {
    this.#byRequest.set(requestId, budget ? { org, amount: held, budget } : { org, amount: held });
    this.#add(org, held);
    if (budget) this.#add(budget, held);
  }

  #add(name: string, held: Whole): void {
    this.#byOrg.set(name, addWhole(this.#byOrg.get(name) ?? 0, held));
  }

  #take(name: string, held: Whole): void {
    const left = subtractWhole(this.#byOrg.get(name) ?? 0, held);
    if (left === 0) this.#byOrg.delete(name);
    else this.#byOrg.set(name, left);
  }

  /** The key budget the request's hold counts against, if any (its debit counts there too). */
  budgetOf(requestId: string): string | undefined {
    return this.#byRequest.get(requestId)?.budget;
  }

  /** Releases the request's hold; nothing happens when it has none (idempotent). */
  release(requestId: string): void {
    const hold = this.#byRequest.get(requestId);
    if (!hold) return;
    this.#byRequest.delete(requestId);
    this.shared?.release(hold.org, sharedAmount(hold.amount));
    this.#take(hold.org, hold.amount);
    if (hold.budget) {
      this.shared?.release(hold.budget, sharedAmount(hold.amount));
      this.#take(hold.budget, hold.amount);
    }
  }

  /** What the organization's (or, by its `budgetName`, a key budget's) requests in flight hold. */
  heldBy(org: string): bigint {
    return BigInt(this.heldCount(org));
  }

  /** `heldBy` as a number while exact (`whole.ts`); every isolate's holds when shared. */
  heldCount(org: string): Whole {
    if (this.shared) return whole(this.shared.held(org));
    return this.#byOrg.get(org) ?? 0;
  }

  /** Requests of this isolate holding credit now (metrics, tests). */
  get open(): number {
    return this.#byRequest.size;
  }

  /** Everything this isolate's requests hold now, all organizations (metrics, tests). */
  get total(): bigint {
    let sum: Whole = 0;
    for (const hold of this.#byRequest.values()) sum = addWhole(sum, hold.amount);
    return BigInt(sum);
  }
}
