/**
 * Authenticates bearer keys: format check first (no lookup for malformed keys), then a
 * cached store lookup. A found key is cached for at most `ttlMs` (≤ 30 s), which is what
 * makes a revocation take effect within 30 s (sooner where the store tells of revocations:
 * `forget`). Unknown keys are not cached, so a key created
 * by the admin CLI works at once. While the store fails, a key seen within `staleMs` past its
 * cache expiry still answers (the gateway keeps serving through a database restart).
 *
 * The record it answers carries what the operator set for the key's organization, read with
 * the key on each lookup (`orgControls`) — so a change reaches existing keys within the same
 * cache time, at no cost to a cached request: the effective rpm (the key's own, capped by the
 * organization's RPM ceiling) and whether the organization is suspended (the gate then
 * refuses the key: `organization_suspended.ts`).
 */
import { hashApiKey, isWellFormedApiKey } from "./api_key_format.ts";
import type { ApiKeyRecord } from "../state/records.ts";
import type { Store } from "../state/store.ts";

/** What the key lookup reads of the key's organization (its control-plane settings). */
export interface OrgControls {
  rpmCeiling: number | null;
  /** Suspended by an operator: its keys are refused until restored. */
  suspended: boolean;
}

/** A found key as the gate sees it: its effective rpm, and its organization's state. */
export type AuthenticatedKey = ApiKeyRecord & { orgSuspended: boolean };

interface Cached {
  record: AuthenticatedKey;
  expires: number;
}

export class ApiKeyAuthenticator {
  /**
   * By the `Authorization` value as received: a client sends the same one on every request,
   * so a hit needs neither the scheme check, the slice nor the format's regular expression
   * (only well-formed keys are ever stored). Only `<scheme> <key>` spellings are entries of
   * their own (`bearer`, `BEARER`: at most 64 per key, each as short as the key); one with more
   * whitespace shares `Bearer <key>`'s entry, so a client cannot grow the cache with whitespace
   * of ever new lengths (a header value may be ~100 KB). `forget` drops all of them.
   */
  #cache = new Map<string, Cached>();
  /** Bumped by every `forget`: a lookup that overlapped one may have read a revoked key's row. */
  #forgets = 0;

  constructor(
    private readonly store: Pick<Store, "findApiKeyByHash" | "away">,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    /** How long past its expiry an entry may still answer while the store fails. */
    private readonly staleMs = 0,
    /** The organization's ceiling and state; absent: keys keep their rpm, never suspended. */
    private readonly orgControls?: (orgId: string) => Promise<OrgControls>,
  ) {}

  /** Drops a key from the cache (told of its revocation): its next request looks it up. */
  forget(keyId: string): void {
    this.#forgets++;
    for (const [key, cached] of this.#cache) {
      if (cached.record.id === keyId) this.#cache.delete(key);
    }
  }

  /** Entries held (tests). */
  get size(): number {
    return this.#cache.size;
  }

  /** The active key record for an `Authorization` header value, or undefined. */
  async authenticate(header: string | null | undefined): Promise<AuthenticatedKey | undefined> {
    if (!header) return undefined;
    const now = this.now();
    let cached = this.#cache.get(header);
    if (cached && cached.expires > now) return cached.record.revoked ? undefined : cached.record;
    // The scheme name is case-insensitive (RFC 9110).
    if (header.length < 7 || header.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
    const key = header.slice(7).trim();
    if (!isWellFormedApiKey(key)) return undefined;
    const entry = header.length === 7 + key.length ? header : `Bearer ${key}`;
    if (entry !== header) {
      cached = this.#cache.get(entry);
      if (cached && cached.expires > now) return cached.record.revoked ? undefined : cached.record;
    }
    let record: AuthenticatedKey | undefined;
    const forgets = this.#forgets;
    const stale = cached !== undefined && now - cached.expires < this.staleMs;
    // The store is away: a key seen recently answers without a call (at the normal latency).
    if (stale && this.store.away?.()) return cached!.record.revoked ? undefined : cached!.record;
    try {
      const found = await this.store.findApiKeyByHash(hashApiKey(key));
      if (found) {
        record = withControls(found, await this.orgControls?.(found.org) ?? NO_CONTROLS);
      }
    } catch (error) {
      // The store is away: a key seen recently keeps working for a bounded time.
      if (stale) return cached!.record.revoked ? undefined : cached!.record;
      throw error;
    }
    if (!record) {
      this.#cache.delete(entry);
      return undefined;
    }
    if (this.#cache.size > 100_000) this.#cache.clear();
    // A revocation told while this lookup ran may be newer than what it read: not cached.
    if (forgets === this.#forgets) this.#cache.set(entry, { record, expires: now + this.ttlMs });
    else this.#cache.delete(entry);
    return record.revoked ? undefined : record;
  }
}

const NO_CONTROLS: OrgControls = { rpmCeiling: null, suspended: false };

/** The record with its effective rpm (min of the key's and the ceiling) and its org's state. */
function withControls(record: ApiKeyRecord, controls: OrgControls): AuthenticatedKey {
  const ceiling = controls.rpmCeiling;
  const rpm = ceiling !== null && ceiling < record.rpm ? ceiling : record.rpm;
  return { ...record, rpm, orgSuspended: controls.suspended };
}
