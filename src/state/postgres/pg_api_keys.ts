/**
 * API keys on PostgreSQL: one row per key, its SHA-256 hash unique (looked up by auth). A
 * revocation is told to every instance at once (`pg_revocations.ts`).
 */
import type { Db } from "./connect.ts";
import { REVOCATION_CHANNEL, type RevocationListener } from "./pg_revocations.ts";
import type { ApiKeyStore } from "../store.ts";
import type { ApiKeyRecord } from "../records.ts";
import type { BudgetPeriod } from "../../util/budget_period.ts";

/** A `sovra_api_keys` row as postgres.js reads it. */
export interface KeyRow {
  id: string;
  org_id: string;
  name: string | null;
  rpm: number;
  hash: string;
  prefix: string;
  created: Date;
  revoked: boolean;
  revoked_at: Date | null;
  expires_at: Date | null;
  rotated_from: string | null;
  rotated_to: string | null;
  budget_micro_eur: bigint | null;
  budget_period: string | null;
}

export function pgApiKeyStore(sql: Db, revocations: RevocationListener): ApiKeyStore {
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
      const inserted = await sql`
        insert into sovra_api_keys (id, org_id, name, rpm, hash, prefix, created, expires_at,
          rotated_from, budget_micro_eur, budget_period)
        values (${key.id}, ${key.org}, ${key.name}, ${key.rpm}, ${key.hash}, ${key.prefix},
          ${record.created}, ${record.expires_at ?? null}, ${record.rotated_from ?? null},
          ${record.budget_micro_eur ?? null}, ${record.budget_period ?? null})
        on conflict do nothing returning id`;
      if (inserted.length === 0) throw new Error("The API key collides with an existing one.");
      return record;
    },
    async findApiKeyByHash(hash) {
      const [row] = await sql<KeyRow[]>`select * from sovra_api_keys where hash = ${hash}`;
      return row ? keyRecord(row) : undefined;
    },
    async getApiKey(keyId) {
      const [row] = await sql<KeyRow[]>`select * from sovra_api_keys where id = ${keyId}`;
      return row ? keyRecord(row) : undefined;
    },
    async listApiKeys(orgId) {
      const rows = await sql<KeyRow[]>`
        select * from sovra_api_keys where org_id = ${orgId} order by id`;
      return rows.map(keyRecord);
    },
    async revokeApiKey(keyId) {
      // One statement; revoking twice keeps the first revocation time.
      const now = new Date().toISOString();
      const [row] = await sql<KeyRow[]>`
        update sovra_api_keys
        set revoked_at = case when revoked then revoked_at else ${now}::timestamptz end,
          revoked = true
        where id = ${keyId} returning *`;
      if (!row) return undefined;
      // After the commit, so an instance told re-reads the revoked row; best effort (a database
      // without NOTIFY still revokes, within the key cache's expiry).
      await sql`select pg_notify(${REVOCATION_CHANNEL}, ${keyId})`.catch(() => {});
      return keyRecord(row);
    },
    async updateApiKey(keyId, change) {
      const [row] = await sql<KeyRow[]>`
        update sovra_api_keys set
          expires_at = ${"expires_at" in change ? change.expires_at ?? null : sql`expires_at`},
          rotated_to = ${"rotated_to" in change ? change.rotated_to ?? null : sql`rotated_to`},
          budget_micro_eur = ${
        "budget_micro_eur" in change ? change.budget_micro_eur ?? null : sql`budget_micro_eur`
      },
          budget_period = ${
        "budget_period" in change ? change.budget_period ?? null : sql`budget_period`
      }
        where id = ${keyId} returning *`;
      if (!row) return undefined;
      // Other instances drop the key from their caches, as for a revocation.
      await sql`select pg_notify(${REVOCATION_CHANNEL}, ${keyId})`.catch(() => {});
      return keyRecord(row);
    },
    onKeyRevoked: (listener) => revocations.add(listener),
  };
}

export function keyRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    org: row.org_id,
    name: row.name,
    rpm: row.rpm,
    hash: row.hash,
    prefix: row.prefix,
    created: row.created.toISOString(),
    revoked: row.revoked,
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    expires_at: row.expires_at ? row.expires_at.toISOString() : null,
    rotated_from: row.rotated_from,
    rotated_to: row.rotated_to,
    budget_micro_eur: row.budget_micro_eur === null ? null : Number(row.budget_micro_eur),
    budget_period: row.budget_period as BudgetPeriod | null,
  };
}
