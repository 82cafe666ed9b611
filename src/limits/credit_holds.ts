/**
 * Credit held by requests in flight, per organization (issue 17 item 4). A request holds the
 * most it may cost before its first upstream call; the hold is released when its debit is
 * queued (the settle) or when it ends without one. The gate's balance is the balance minus
 * every hold of this instance, so concurrent requests cannot all spend the same credit.
 */
interface Hold {
  org: string;
  amount: bigint;
}

export class CreditHolds {
  #byRequest = new Map<string, Hold>();
  #byOrg = new Map<string, bigint>();

  /** Holds `amount` for the request (replacing an earlier hold of the same request). */
  hold(requestId: string, org: string, amount: bigint): void {
    this.release(requestId);
    this.#byRequest.set(requestId, { org, amount });
    this.#byOrg.set(org, (this.#byOrg.get(org) ?? 0n) + amount);
  }

  /** Releases the request's hold; nothing happens when it has none (idempotent). */
  release(requestId: string): void {
    const hold = this.#byRequest.get(requestId);
    if (!hold) return;
    this.#byRequest.delete(requestId);
    const left = (this.#byOrg.get(hold.org) ?? 0n) - hold.amount;
    if (left === 0n) this.#byOrg.delete(hold.org);
    else this.#byOrg.set(hold.org, left);
  }

  /** What the organization's requests in flight hold. */
  heldBy(org: string): bigint {
    return this.#byOrg.get(org) ?? 0n;
  }

  /** Requests holding credit now (metrics, tests). */
  get open(): number {
    return this.#byRequest.size;
  }

  /** Everything held now, all organizations (metrics, tests). */
  get total(): bigint {
    let sum = 0n;
    for (const amount of this.#byOrg.values()) sum += amount;
    return sum;
  }
}
