/**
 * The effective policy of a key, read from the store and cached for at most `ttlMs` (30 s by
 * default, the same bound as a key revocation): a policy change takes effect within that
 * bound on every instance. While the store fails, an entry seen within `staleMs` past its
 * expiry still answers; with none, the read's error propagates (the request fails rather than
 * being served under an unknown policy: fail closed).
 */
import type { PolicyStore } from "../state/policy_store.ts";
import { type EffectivePolicy, effectivePolicy } from "./effective_policy.ts";

interface Cached {
  policy: EffectivePolicy;
  expires: number;
}

export class PolicyCache {
  /** Organization → key → entry: no string is built per request; `invalidate(org)` is one delete. */
  #cache = new Map<string, Map<string, Cached>>();
  #size = 0;

  constructor(
    private readonly store: Pick<PolicyStore, "getOrgPolicy" | "getKeyPolicy"> & {
      away?(): boolean;
    },
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
    private readonly staleMs = 0,
  ) {}

  async policyOf(orgId: string, keyId: string): Promise<EffectivePolicy> {
    const now = this.now();
    const cached = this.#cache.get(orgId)?.get(keyId);
    if (cached && cached.expires > now) return cached.policy;
    let policy: EffectivePolicy;
    const stale = cached !== undefined && now - cached.expires < this.staleMs;
    // The store is away: a policy seen recently answers without a call.
    if (stale && this.store.away?.()) return cached!.policy;
    try {
      const [org, forKey] = await Promise.all([
        this.store.getOrgPolicy(orgId),
        this.store.getKeyPolicy(keyId),
      ]);
      policy = effectivePolicy(org, forKey);
    } catch (error) {
      if (stale) return cached!.policy;
      throw error;
    }
    if (this.#size > 100_000) this.invalidate();
    let keys = this.#cache.get(orgId);
    if (keys === undefined) this.#cache.set(orgId, keys = new Map());
    if (!keys.has(keyId)) this.#size++;
    keys.set(keyId, { policy, expires: now + this.ttlMs });
    return policy;
  }

  /**
   * Forgets cached entries: the next request of the organization (of any, without `orgId`) reads
   * its policy again. Nothing in the gateway calls it today (a change takes effect within
   * `ttlMs`); tests do.
   */
  invalidate(orgId?: string): void {
    if (orgId === undefined) {
      this.#cache.clear();
      this.#size = 0;
      return;
    }
    const keys = this.#cache.get(orgId);
    if (keys === undefined) return;
    this.#size -= keys.size;
    this.#cache.delete(orgId);
  }
}
