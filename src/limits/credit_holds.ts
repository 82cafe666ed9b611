/**
 * Credit held by requests in flight, per organization (issue 17 item 4). A request holds the
 * most it may cost before its first upstream call; the hold is released when its debit is
 * queued (the settle) or when it ends without one. The gate's balance is the balance minus
 * every hold of this instance, so concurrent requests cannot all spend the same credit.
 *
 * Amounts are whole micro-EUR kept as numbers while exact (`whole.ts`: bigints past 2^53, so a
 * huge hold beside small ones adds and releases exactly); `heldBy` and `total` give bigints.
 */
import { addWhole, subtractWhole, type Whole, whole } from "./whole.ts";

interface Hold {
  org: string;
  amount: Whole;
}

export class CreditHolds {
  #byRequest = new Map<string, Hold>();
  #byOrg = new Map<string, Whole>();

  /** Holds `amount` for the request (replacing an earlier hold of the same request). */
  hold(requestId: string, org: string, amount: bigint | number): void {
    this.release(requestId);
    const held = whole(amount);
    this.#byRequest.set(requestId, { org, amount: held });
    this.#byOrg.set(org, addWhole(this.#byOrg.get(org) ?? 0, held));
  }

  /** Releases the request's hold; nothing happens when it has none (idempotent). */
  release(requestId: string): void {
    const hold = this.#byRequest.get(requestId);
    if (!hold) return;
    this.#byRequest.delete(requestId);
    const left = subtractWhole(this.#byOrg.get(hold.org) ?? 0, hold.amount);
    if (left === 0) this.#byOrg.delete(hold.org);
    else this.#byOrg.set(hold.org, left);
  }

  /** What the organization's requests in flight hold. */
  heldBy(org: string): bigint {
    return BigInt(this.heldCount(org));
  }

  /** `heldBy` as a number while exact (`whole.ts`). */
  heldCount(org: string): Whole {
    return this.#byOrg.get(org) ?? 0;
  }

  /** Requests holding credit now (metrics, tests). */
  get open(): number {
    return this.#byRequest.size;
  }

  /** Everything held now, all organizations (metrics, tests). */
  get total(): bigint {
    let sum: Whole = 0;
    for (const amount of this.#byOrg.values()) sum = addWhole(sum, amount);
    return BigInt(sum);
  }
}
