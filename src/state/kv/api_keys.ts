/** API keys on Deno KV: the record, a hash → id index for auth, an org → key index for listing. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { ApiKeyStore } from "../store.ts";
import type { ApiKeyRecord } from "../records.ts";

export function kvApiKeyStore(kv: Deno.Kv): ApiKeyStore {
  return {
    async createApiKey(key) {
      const record: ApiKeyRecord = {
        ...key,
        created: new Date().toISOString(),
        revoked: false,
        revoked_at: null,
        expires_at: key.expires_at ?? null,
        rotated_from: key.rotated_from ?? null,
        rotated_to: null,
        budget_micro_eur: key.budget_micro_eur ?? null,
        budget_period: key.budget_period ?? null,
      };
      await withLockRetry(async () => {
        const result = await kv.atomic()
          .check({ key: kvKeys.apiKeyHash(key.hash), versionstamp: null })
          .check({ key: kvKeys.apiKey(key.id), versionstamp: null })
          .set(kvKeys.apiKey(key.id), record)
          .set(kvKeys.apiKeyHash(key.hash), key.id)
          .set(kvKeys.orgKey(key.org, key.id), true)
          .commit();
        if (!result.ok) throw new Error("The API key collides with an existing one.");
      });
      return record;
    },
    async findApiKeyByHash(hash) {
      const id = await kv.get<string>(kvKeys.apiKeyHash(hash));
      if (id.value === null) return undefined;
      const record = await kv.get<ApiKeyRecord>(kvKeys.apiKey(id.value));
      return record.value ?? undefined;
    },
    async getApiKey(keyId) {
      return (await kv.get<ApiKeyRecord>(kvKeys.apiKey(keyId))).value ?? undefined;
    },
    async listApiKeys(orgId) {
      const out: ApiKeyRecord[] = [];
      for await (const entry of kv.list({ prefix: kvKeys.orgKeyPrefix(orgId) })) {
        const keyId = entry.key[2] as string;
        const record = await kv.get<ApiKeyRecord>(kvKeys.apiKey(keyId));
        if (record.value) out.push(record.value);
      }
      return out;
    },
    updateApiKey(keyId, change) {
      return withLockRetry(async () => {
        for (;;) {
          const current = await kv.get<ApiKeyRecord>(kvKeys.apiKey(keyId));
          if (!current.value) return undefined;
          const updated: ApiKeyRecord = { ...current.value, ...change };
          const result = await kv.atomic().check(current).set(kvKeys.apiKey(keyId), updated)
            .commit();
          if (result.ok) return updated;
        }
      });
    },
    revokeApiKey(keyId) {
      return withLockRetry(async () => {
        for (;;) {
          const current = await kv.get<ApiKeyRecord>(kvKeys.apiKey(keyId));
          if (!current.value) return undefined;
          if (current.value.revoked) return current.value;
          const revoked = {
            ...current.value,
            revoked: true,
            revoked_at: new Date().toISOString(),
          };
          const result = await kv.atomic().check(current).set(kvKeys.apiKey(keyId), revoked)
            .commit();
          if (result.ok) return revoked;
        }
      });
    },
  };
}
