/**
 * An API key's lifetime: an optional expiry (from then on the key answers 401
 * `api_key_expired`, within the key cache's delay of a change), and rotation — a successor key
 * issued (shown once) with the same name, rate limit and narrowing policy, while the old key
 * keeps working for a grace period and then expires. Shared by the admin CLI and the dashboard.
 */
import type { ApiKeyStore, OrgStore } from "../state/store.ts";
import type { PolicyStore } from "../state/policy_store.ts";
import type { ApiKeyRecord } from "../state/records.ts";
import { AccountError } from "./account_error.ts";
import { issueApiKey } from "./api_keys.ts";

/** The longest grace period a rotation keeps the old key for: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;
/** The grace period when none is given: a day, time for every deployment to pick up the new key. */
export const DEFAULT_GRACE_SECONDS = 86_400;
/** The latest expiry a key may be given: 10 years ahead. */
const MAX_LIFETIME_MS = 10 * 365 * 86_400_000;

export type KeyState = "active" | "expired" | "revoked";

/** Whether the key works at `now`: revoked wins, then an expiry at or before `now`. */
export function keyState(record: ApiKeyRecord, now: number): KeyState {
  if (record.revoked) return "revoked";
  if (isExpired(record, now)) return "expired";
  return "active";
}

export function isExpired(record: ApiKeyRecord, now: number): boolean {
  const at = record.expires_at;
  return at !== undefined && at !== null && Date.parse(at) <= now;
}

const DURATION = /^(\d{1,9})([smhd])$/;
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * An expiry as given: an ISO 8601 time with a zone (`2027-01-31T00:00:00Z`), a duration from
 * now (`90d`, `12h`, `30m`, `3600s`), or `never` (null). It must lie in the future, at most 10
 * years ahead. Returns the ISO time.
 */
export function parseExpiry(raw: string, now: number, field = "expires_at"): string | null {
  const text = raw.trim();
  if (text === "never") return null;
  const duration = DURATION.exec(text);
  let at: number;
  if (duration) {
    at = now + Number(duration[1]) * UNIT_MS[duration[2]!]!;
  } else {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
      throw new AccountError(
        "invalid",
        `The expiry must be an ISO 8601 time with a zone (e.g. 2027-01-31T00:00:00Z), a duration such as 90d or 12h, or 'never'; got '${text}'.`,
        field,
      );
    }
    at = Date.parse(text);
  }
  if (!Number.isFinite(at) || at <= now) {
    throw new AccountError("invalid", "The expiry must lie in the future.", field);
  }
  if (at - now > MAX_LIFETIME_MS) {
    throw new AccountError("invalid", "The expiry may be at most 10 years ahead.", field);
  }
  return new Date(at).toISOString();
}

/** The grace period of a rotation, seconds: a whole number from 0 to 30 days. */
export function graceSeconds(raw: number | undefined): number {
  const grace = raw ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isSafeInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
    throw new AccountError(
      "invalid",
      `The grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (30 days).`,
      "grace_seconds",
    );
  }
  return grace;
}

/** The key, when it belongs to `org` (null: any organization's, the operator's CLI). */
async function ownKey(
  store: ApiKeyStore,
  org: string | null,
  keyId: string,
): Promise<ApiKeyRecord> {
  const key = await store.getApiKey(keyId);
  if (!key || (org !== null && key.org !== org)) {
    throw new AccountError("not_found", `API key '${keyId}' does not exist.`);
  }
  return key;
}

/** Sets (or, with null, removes) a key's expiry. A revoked key cannot be changed. */
export async function setKeyExpiry(
  store: ApiKeyStore,
  org: string | null,
  keyId: string,
  expiresAt: string | null,
): Promise<ApiKeyRecord> {
  const key = await ownKey(store, org, keyId);
  if (key.revoked) throw new AccountError("invalid", `API key '${keyId}' is revoked.`, "id");
  const updated = await store.updateApiKey(keyId, { expires_at: expiresAt });
  if (!updated) throw new AccountError("not_found", `API key '${keyId}' does not exist.`);
  return updated;
}

export interface Rotation {
  /** The successor: its record and the key itself (shown only here). */
  successor: ApiKeyRecord;
  key: string;
  /** The old key, expiring at the end of the grace period. */
  previous: ApiKeyRecord;
}

/**
 * Rotates a working key: a successor with the same name, rate limit and narrowing policy (and
 * `expiresAt`, if given), then the old key set to expire `grace` seconds from `now` (sooner if
 * it already expired earlier) and linked to its successor. A key rotated once, revoked or
 * expired is refused.
 */
export async function rotateApiKey(
  store: OrgStore & ApiKeyStore & Pick<PolicyStore, "getKeyPolicy" | "putKeyPolicy">,
  org: string | null,
  keyId: string,
  options: { grace: number; now: number; expiresAt?: string | null; actor: string },
): Promise<Rotation> {
  const old = await ownKey(store, org, keyId);
  const state = keyState(old, options.now);
  if (state !== "active") {
    throw new AccountError(
      "invalid",
      `API key '${keyId}' is ${state}; only a working key rotates.`,
      "id",
    );
  }
  if (old.rotated_to) {
    throw new AccountError(
      "invalid",
      `API key '${keyId}' was already rotated to '${old.rotated_to}'; rotate that key instead.`,
      "id",
    );
  }
  const { record, key } = await issueApiKey(store, {
    org: old.org,
    name: old.name,
    rpm: old.rpm,
    expiresAt: options.expiresAt ?? null,
    rotatedFrom: old.id,
    budget: old.budget_micro_eur && old.budget_period
      ? { budget_micro_eur: old.budget_micro_eur, budget_period: old.budget_period }
      : null,
  });
  const policy = await store.getKeyPolicy(old.id);
  if (policy) await store.putKeyPolicy(old.org, record.id, policy, options.actor);
  const graceEnd = options.now + options.grace * 1_000;
  const current = old.expires_at ? Date.parse(old.expires_at) : Infinity;
  const previous = await store.updateApiKey(old.id, {
    expires_at: new Date(Math.min(graceEnd, current)).toISOString(),
    rotated_to: record.id,
  });
  if (!previous) throw new AccountError("not_found", `API key '${keyId}' does not exist.`);
  return { successor: record, key, previous };
}
