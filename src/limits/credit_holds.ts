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
}

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
    this.release(requestId);
    const held = whole(amount);
    if (this.shared) {
      const placed = this.shared.tryHold(org, sharedAmount(held), (all) => fits(whole(all)));
      if (!placed) return false;
    } else if (!fits(this.heldCount(org))) return false;
    this.#record(requestId, org, held);
    return true;
  }

  #record(requestId: string, org: string, held: Whole): void {
    this.#byRequest.set(requestId, { org, amount: held });
    this.#byOrg.set(org, addWhole(this.#byOrg.get(org) ?? 0, held));
  }

  /** Releases the request's hold; nothing happens when it has none (idempotent). */
  release(requestId: string): void {
    const hold = this.#byRequest.get(requestId);
    if (!hold) return;
    this.#byRequest.delete(requestId);
    this.shared?.release(hold.org, sharedAmount(hold.amount));
    const left = subtractWhole(this.#byOrg.get(hold.org) ?? 0, hold.amount);
    if (left === 0) this.#byOrg.delete(hold.org);
    else this.#byOrg.set(hold.org, left);
  }

  /** What the organization's requests in flight hold. */
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
    for (const amount of this.#byOrg.values()) sum = addWhole(sum, amount);
    return BigInt(sum);
  }
}
