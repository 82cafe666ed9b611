/**
 * API keys: issued for an existing organization with a rate limit of at least 1 request per
 * minute and an optional name (`keyName`), shown once, stored only as a hash with a short
 * prefix for recognition.
 */
import type { KeyBudgetSetting } from "./key_budget.ts";
import { generateApiKey, hashApiKey } from "../auth/api_key_format.ts";
import { randomId } from "../util/ids.ts";
import type { ApiKeyStore, OrgStore } from "../state/store.ts";
import type { ApiKeyRecord } from "../state/records.ts";
import { AccountError } from "./account_error.ts";
import { requireOrganization } from "./orgs.ts";

/** A key as listings show it: never the hash, never the key. */
export type ApiKeyListing = Omit<ApiKeyRecord, "hash">;

/** The longest key name, in characters (code points): a label, not a description. */
export const KEY_NAME_MAX = 64;

/**
 * Control characters (C0, DEL, C1), line and paragraph separators and the bidirectional
 * overrides and isolates: a name shows in tables, CSV exports and terminals, where these would
 * break lines, hide text or reorder what the reader sees.
 */
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** A key's name as stored: trimmed, 1 to 64 characters, nothing unprintable; null: none. */
export function keyName(raw: string | null): string | null {
  if (raw === null) return null;
  const name = raw.trim();
  const bad = UNPRINTABLE.exec(name)?.[0];
  if (bad !== undefined) {
    const code = `U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    throw new AccountError(
      "invalid",
      `The key name must not contain control characters (found ${code}).`,
      "name",
    );
  }
  const length = [...name].length;
  if (length < 1 || length > KEY_NAME_MAX) {
    throw new AccountError(
      "invalid",
      `The key name must be 1 to ${KEY_NAME_MAX} characters after trimming spaces (got ${length}).`,
      "name",
    );
  }
  return name;
}

export async function issueApiKey(
  store: OrgStore & ApiKeyStore,
  input: {
    org: string;
    name: string | null;
    rpm: number;
    /** ISO time from which the key answers 401 `api_key_expired` (`key_lifecycle.ts`). */
    expiresAt?: string | null;
    /** The key this one replaces (a rotation). */
    rotatedFrom?: string;
    /** Its budget (`key_budget.ts`), if any. */
    budget?: KeyBudgetSetting | null;
  },
): Promise<{ record: ApiKeyRecord; key: string }> {
  const name = keyName(input.name);
  await requireOrganization(store, input.org);
  if (!Number.isSafeInteger(input.rpm) || input.rpm < 1) {
    throw new AccountError("invalid", "The rate limit must be at least 1 request per minute.");
  }
  const key = generateApiKey();
  const record = await store.createApiKey({
    id: randomId("key_", 12),
    org: input.org,
    name,
    rpm: input.rpm,
    hash: hashApiKey(key),
    prefix: key.slice(0, 10),
    expires_at: input.expiresAt ?? null,
    ...(input.rotatedFrom ? { rotated_from: input.rotatedFrom } : {}),
    ...(input.budget ? input.budget : {}),
  });
  return { record, key };
}

export async function listApiKeys(
  store: OrgStore & ApiKeyStore,
  orgId: string,
): Promise<ApiKeyListing[]> {
  await requireOrganization(store, orgId);
  return (await store.listApiKeys(orgId)).map(({ hash: _hash, ...rest }) => rest);
}

/** Revokes a key (idempotent); `not_found` when no such key exists. */
export async function revokeApiKey(store: ApiKeyStore, keyId: string): Promise<ApiKeyRecord> {
  const record = await store.revokeApiKey(keyId);
  if (!record) throw new AccountError("not_found", `API key '${keyId}' does not exist.`);
  return record;
}
