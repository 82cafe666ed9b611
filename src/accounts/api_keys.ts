/**
 * API keys: issued for an existing organization with a rate limit of at least 1 request per
 * minute, shown once, stored only as a hash with a short prefix for recognition.
 */
import { generateApiKey, hashApiKey } from "../auth/api_key_format.ts";
import { randomId } from "../util/ids.ts";
import type { ApiKeyStore, OrgStore } from "../state/store.ts";
import type { ApiKeyRecord } from "../state/records.ts";
import { AccountError } from "./account_error.ts";
import { requireOrganization } from "./orgs.ts";

/** A key as listings show it: never the hash, never the key. */
export type ApiKeyListing = Omit<ApiKeyRecord, "hash">;

export async function issueApiKey(
  store: OrgStore & ApiKeyStore,
  input: { org: string; name: string | null; rpm: number },
): Promise<{ record: ApiKeyRecord; key: string }> {
  await requireOrganization(store, input.org);
  if (!Number.isSafeInteger(input.rpm) || input.rpm < 1) {
    throw new AccountError("invalid", "The rate limit must be at least 1 request per minute.");
  }
  const key = generateApiKey();
  const record = await store.createApiKey({
    id: randomId("key_", 12),
    org: input.org,
    name: input.name,
    rpm: input.rpm,
    hash: hashApiKey(key),
    prefix: key.slice(0, 10),
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
