/**
 * Authenticates bearer keys: format check first (no lookup for malformed keys), then a
 * cached store lookup. A found key is cached for at most `ttlMs` (≤ 30 s), which is what
 * makes a revocation take effect within 30 s. Unknown keys are not cached, so a key created
 * by the admin CLI works at once.
 */
import { hashApiKey, isWellFormedApiKey } from "./api_key_format.ts";
import type { ApiKeyRecord } from "../state/records.ts";
import type { Store } from "../state/store.ts";

interface Cached {
  record: ApiKeyRecord;
  expires: number;
}

export class ApiKeyAuthenticator {
  #cache = new Map<string, Cached>();

  constructor(
    private readonly store: Pick<Store, "findApiKeyByHash">,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The active key record for an `Authorization` header value, or undefined. */
  async authenticate(header: string | null | undefined): Promise<ApiKeyRecord | undefined> {
    // The scheme name is case-insensitive (RFC 9110).
    if (!header || header.length < 7 || header.slice(0, 7).toLowerCase() !== "bearer ") {
      return undefined;
    }
    const key = header.slice(7).trim();
    if (!isWellFormedApiKey(key)) return undefined;
    const now = this.now();
    const cached = this.#cache.get(key);
    if (cached && cached.expires > now) return cached.record.revoked ? undefined : cached.record;
    const record = await this.store.findApiKeyByHash(hashApiKey(key));
    if (!record) {
      this.#cache.delete(key);
      return undefined;
    }
    if (this.#cache.size > 100_000) this.#cache.clear();
    this.#cache.set(key, { record, expires: now + this.ttlMs });
    return record.revoked ? undefined : record;
  }
}
