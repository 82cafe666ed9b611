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
  #cache = new Map<string, Cached>();

  constructor(
    private readonly store: Pick<PolicyStore, "getOrgPolicy" | "getKeyPolicy">,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
    private readonly staleMs = 0,
  ) {}

  async policyOf(orgId: string, keyId: string): Promise<EffectivePolicy> {
    const now = this.now();
    const key = `${orgId}\u0000${keyId}`;
    const cached = this.#cache.get(key);
    if (cached && cached.expires > now) return cached.policy;
    let policy: EffectivePolicy;
    try {
      const [org, forKey] = await Promise.all([
        this.store.getOrgPolicy(orgId),
        this.store.getKeyPolicy(keyId),
      ]);
      policy = effectivePolicy(org, forKey);
    } catch (error) {
      if (cached && now - cached.expires < this.staleMs) return cached.policy;
      throw error;
    }
    if (this.#cache.size > 100_000) this.#cache.clear();
    this.#cache.set(key, { policy, expires: now + this.ttlMs });
    return policy;
  }

  /** Forgets cached entries (the admin CLI and dashboard call it after a change in-process). */
  invalidate(orgId?: string): void {
    if (orgId === undefined) this.#cache.clear();
    else {for (const key of this.#cache.keys()) {
        if (key.startsWith(`${orgId}\u0000`)) this.#cache.delete(key);
      }}
  }
}
