/**
 * Every Deno KV key the gateway uses, in one place. Nothing else builds a key.
 *
 * Layout:
 *   ["org", orgId]                              → OrgRecord
 *   ["credit", orgId, "granted" | "spent"]      → KvU64, only ever summed (monotonic)
 *   ["apikey", keyId]                           → ApiKeyRecord
 *   ["apikey_hash", sha256hex]                  → keyId
 *   ["org_key", orgId, keyId]                   → true (index for listing)
 *   ["rl", minute, keyId]                       → KvU64 requests in that minute (window first,
 *                                                  so old windows are deleted by one range)
 *   ["req", orgId, requestId]                   → RequestRecord (ids sort by time)
 *   ["usage_day", orgId, "YYYY-MM-DD", field]   → KvU64 daily aggregate
 */
export const kvKeys = {
  org: (orgId: string) => ["org", orgId] as const,
  orgPrefix: () => ["org"] as const,
  credit: (orgId: string, side: "granted" | "spent") => ["credit", orgId, side] as const,
  creditPrefix: () => ["credit"] as const,
  apiKey: (keyId: string) => ["apikey", keyId] as const,
  apiKeyPrefix: () => ["apikey"] as const,
  apiKeyHash: (hash: string) => ["apikey_hash", hash] as const,
  orgKey: (orgId: string, keyId: string) => ["org_key", orgId, keyId] as const,
  orgKeyPrefix: (orgId: string) => ["org_key", orgId] as const,
  rate: (minute: number, keyId: string) => ["rl", minute, keyId] as const,
  ratePrefix: () => ["rl"] as const,
  request: (orgId: string, requestId: string) => ["req", orgId, requestId] as const,
  requestPrefix: (orgId: string) => ["req", orgId] as const,
  requestAllPrefix: () => ["req"] as const,
  usageDay: (orgId: string, day: string, field: UsageField) =>
    ["usage_day", orgId, day, field] as const,
  usageDayPrefix: (orgId: string, day: string) => ["usage_day", orgId, day] as const,
  usageDayAllPrefix: () => ["usage_day"] as const,
};

export type UsageField =
  | "requests"
  | "cost_micro_eur"
  | "prompt_tokens"
  | "completion_tokens"
  | "audio_seconds"
  | "characters";
