/**
 * The two-factor area on PostgreSQL. Each change is one statement whose `where` holds the
 * condition the KV backend checks by version, so concurrent calls cannot both pass.
 */
import type { Db } from "./connect.ts";
import type { TwoFactorStore } from "../two_factor_store.ts";
import type { SignInChallengeRecord, TotpRecord } from "../two_factor_records.ts";

interface TotpRow {
  user_id: string;
  secret: string;
  created: Date;
  enabled_at: Date | null;
  last_step: bigint;
  recovery_hashes: string[];
}

interface ChallengeRow {
  hash: string;
  user_id: string;
  created: Date;
  expires: Date;
  next: string;
}

const totp = (r: TotpRow): TotpRecord => ({
  user: r.user_id,
  secret: r.secret,
  created: r.created.toISOString(),
  enabled_at: r.enabled_at ? r.enabled_at.toISOString() : null,
  last_step: Number(r.last_step),
  recovery_hashes: r.recovery_hashes,
});

const challenge = (r: ChallengeRow): SignInChallengeRecord => ({
  hash: r.hash,
  user: r.user_id,
  created: r.created.toISOString(),
  expires: r.expires.toISOString(),
  next: r.next,
});

export function pgTwoFactorStore(sql: Db): TwoFactorStore {
  return {
    async getTotp(userId) {
      const [row] = await sql<TotpRow[]>`select * from sovra_totp where user_id = ${userId}`;
      return row ? totp(row) : undefined;
    },
    async putPendingTotp(r) {
      const rows = await sql`
        insert into sovra_totp (user_id, secret, created, enabled_at, last_step, recovery_hashes)
        values (${r.user}, ${r.secret}, ${r.created}, null, ${r.last_step}, ${r.recovery_hashes})
        on conflict (user_id) do update set secret = excluded.secret, created = excluded.created,
          last_step = excluded.last_step, recovery_hashes = excluded.recovery_hashes
          where sovra_totp.enabled_at is null
        returning user_id`;
      return rows.length > 0;
    },
    async enableTotp(userId, secret, at, step, hashes) {
      const rows = await sql`
        update sovra_totp set enabled_at = ${at}, last_step = ${step}, recovery_hashes = ${hashes}
        where user_id = ${userId} and enabled_at is null and secret = ${secret}
        returning user_id`;
      return rows.length > 0;
    },
    async useTotpStep(userId, step) {
      const rows = await sql`
        update sovra_totp set last_step = ${step}
        where user_id = ${userId} and enabled_at is not null and last_step < ${step}
        returning user_id`;
      return rows.length > 0;
    },
    async useRecoveryCode(userId, hash) {
      const rows = await sql`
        update sovra_totp set recovery_hashes = array_remove(recovery_hashes, ${hash})
        where user_id = ${userId} and enabled_at is not null and ${hash} = any(recovery_hashes)
        returning user_id`;
      return rows.length > 0;
    },
    async replaceRecoveryCodes(userId, hashes) {
      const rows = await sql`
        update sovra_totp set recovery_hashes = ${hashes}
        where user_id = ${userId} and enabled_at is not null returning user_id`;
      return rows.length > 0;
    },
    async deleteTotp(userId) {
      const rows = await sql`delete from sovra_totp where user_id = ${userId} returning user_id`;
      return rows.length > 0;
    },
    async createChallenge(c) {
      await sql`delete from sovra_signin_challenges where expires < now()`;
      await sql`
        insert into sovra_signin_challenges (hash, user_id, created, expires, next)
        values (${c.hash}, ${c.user}, ${c.created}, ${c.expires}, ${c.next})`;
    },
    async getChallenge(hash) {
      const [row] = await sql<ChallengeRow[]>`
        select * from sovra_signin_challenges where hash = ${hash}`;
      return row ? challenge(row) : undefined;
    },
    async takeChallenge(hash) {
      // One statement: under a race exactly one caller gets the row.
      const [row] = await sql<ChallengeRow[]>`
        delete from sovra_signin_challenges where hash = ${hash} returning *`;
      return row ? challenge(row) : undefined;
    },
  };
}
