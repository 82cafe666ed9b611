/**
 * The interface callers see instead of `Deno.Kv`, so a second backend (for example
 * PostgreSQL + Redis for multi-instance EU deployments) can come without touching them.
 */
import type { ApiKeyRecord, GateSnapshot, OrgRecord, OrgView, RequestRecord } from "./records.ts";

export interface NewApiKey {
  id: string;
  org: string;
  name: string | null;
  rpm: number;
  hash: string;
  prefix: string;
}

export interface Store {
  // Organizations and credits (admin, dashboard).
  createOrg(org: OrgRecord, creditsMicroEur: bigint): Promise<OrgView>;
  getOrg(orgId: string): Promise<OrgView | undefined>;
  listOrgs(): Promise<OrgView[]>;
  topUp(orgId: string, microEur: bigint): Promise<bigint>;

  // API keys.
  createApiKey(key: NewApiKey): Promise<ApiKeyRecord>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(orgId: string): Promise<ApiKeyRecord[]>;
  revokeApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;

  // Hot path: one read before, one (group-committed) write after.
  readGate(keyId: string, orgId: string, minute: number): Promise<GateSnapshot>;
  /**
   * Counts a request in a rate bucket; resolves when durable. `onSent` runs once a read issued
   * afterwards is sure to include the increment (until then callers count it from memory).
   */
  countRequest(keyId: string, minute: number, onSent?: () => void): Promise<void>;
  /**
   * Debit + metadata + daily aggregates in one atomic commit; resolves when durable. `onSent`
   * as for `countRequest`.
   */
  settle(record: RequestRecord, onSent?: () => void): Promise<void>;

  listRequests(orgId: string, limit: number): Promise<RequestRecord[]>;
  dailyUsage(orgId: string, day: string): Promise<Record<string, number>>;
  /** Deletes request metadata older than `before` and rate buckets older than `minute`. */
  cleanup(before: Date, beforeMinute: number): Promise<{ requests: number; rateBuckets: number }>;
  /** The backend's own state for /healthz and logs (optional: a local KV file has none). */
  health?(): StoreHealth;
  close(): Promise<void>;
}

export interface StoreHealth {
  backend: string;
  /** False while writes cannot reach the database (they are kept and retried). */
  reachable: boolean;
  [detail: string]: string | number | boolean;
}
