/**
 * One statement that writes a batch of settles and rate increments: request rows inserted
 * (a request id already present is skipped, unless it holds a recovery's estimate: replaced),
 * then the debit, the daily aggregates and the rate
 * buckets incremented by sums over the rows actually inserted, merged per org / day / key.
 * A statement is a transaction, so a batch lands whole or not at all, and replaying a batch
 * (spill file, lost acknowledgement) never bills twice. Increments only: no read-modify-write.
 */
import type { Db } from "./connect.ts";
import type { AdmissionRecord, RequestRecord } from "../records.ts";

export interface RateIncrement {
  minute: number;
  keyId: string;
  count: number;
}

/** Rate increments to the same bucket become one row (ON CONFLICT may touch a row once). */
export function mergeRates(rates: RateIncrement[]): RateIncrement[] {
  const merged = new Map<string, RateIncrement>();
  for (const r of rates) {
    const id = `${r.minute}\u0000${r.keyId}`;
    const current = merged.get(id);
    if (current) current.count += r.count;
    else merged.set(id, { ...r });
  }
  return [...merged.values()];
}

/**
 * Writes the batch; resolves with how many request rows were new. Admission records are
 * inserted, and those of the settled requests deleted, in the same statement (the caller leaves
 * out an admission settled in the same batch: one statement cannot see its own insert).
 *
 * A request already billed from its admission record (`recovered`: its instance was taken for
 * dead, e.g. through an outage longer than its lease) whose real settle arrives later gets its
 * real record: the row is replaced and the credit and daily aggregates move by the difference,
 * once (the replaced row is no longer `recovered`, so a replay changes nothing). Any other id
 * already present is skipped.
 */
export async function writeBatch(
  sql: Db,
  settles: RequestRecord[],
  rates: RateIncrement[],
  admissions: AdmissionRecord[] = [],
  /** Later estimates of open admissions (checkpoints); none settled or admitted in this batch. */
  checkpoints: AdmissionRecord[] = [],
): Promise<number> {
  const records = sql.json(settles as never);
  const progressed = sql.json(checkpoints as never);
  const buckets = sql.json(mergeRates(rates).map((r) => ({ m: r.minute, k: r.keyId, n: r.count })));
  const admitted = sql.json(admissions as never);
  // Rows are ordered by their key in every upsert so concurrent batches from several
  // instances lock shared rows (an org's credits, a day's aggregates) in the same order.
  const [row] = await sql<{ inserted: number }[]>`
    with batch as (
      select r from jsonb_array_elements(${records}) as r
    ), estimated as (
      select q.id, q.record from sovra_requests q
      where q.id in (select r->>'id' from batch where (r->>'recovered') is distinct from 'true')
        and q.record->>'recovered' = 'true'
    ), corrected as (
      update sovra_requests q
        set cost_micro_eur = (b.r->>'cost_micro_eur')::bigint, record = b.r
      from batch b
      where q.id = b.r->>'id' and q.id in (select id from estimated)
        and q.record->>'recovered' = 'true'
      returning q.id, q.org_id, q.record
    ), inserted as (
      insert into sovra_requests (id, org_id, created, key_id, cost_micro_eur, record)
      select r->>'id', r->>'org', (r->>'created')::timestamptz, r->>'key_id',
        (r->>'cost_micro_eur')::bigint, r
      from batch
      where r->>'id' not in (select id from estimated)
      order by r->>'id'
      on conflict (id) do nothing
      returning org_id, record
    ), billed as (
      -- A row standing for several refusals counts them all (refused_count).
      select org_id, record, 1 as sign,
        coalesce((record->>'refused_count')::bigint, 1) as requests from inserted
      union all
      select c.org_id, c.record, 1, 0::bigint from corrected c
      union all
      select c.org_id, e.record, -1, 0::bigint from corrected c join estimated e on e.id = c.id
    ), spent as (
      insert into sovra_credits (org_id, spent_micro_eur)
      select org_id, sum(sign * (record->>'cost_micro_eur')::bigint) from billed
      group by org_id having sum(sign * (record->>'cost_micro_eur')::bigint) <> 0
      order by org_id
      on conflict (org_id) do update
        set spent_micro_eur = sovra_credits.spent_micro_eur + excluded.spent_micro_eur
    ), key_spend as (
      -- The key's spend in each budget period the request counts in (its start, UTC).
      insert into sovra_key_spend (key_id, period, spent_micro_eur)
      select record->>'key_id', p.period, sum(sign * (record->>'cost_micro_eur')::bigint)
      from billed, lateral (values
        ('d:' || substr(record->>'created', 1, 10)),
        ('w:' || to_char(date_trunc('week', ((record->>'created')::timestamptz
          at time zone 'UTC')), 'YYYY-MM-DD')),
        ('m:' || substr(record->>'created', 1, 7)),
        ('t')) as p (period)
      where (record->>'cost_micro_eur')::bigint <> 0
      group by 1, 2 order by 1, 2
      on conflict (key_id, period) do update
        set spent_micro_eur = sovra_key_spend.spent_micro_eur + excluded.spent_micro_eur
    ), usage as (
      insert into sovra_usage_daily (org_id, day, requests, cost_micro_eur, prompt_tokens,
        completion_tokens, audio_seconds, characters, cached_tokens, cache_write_tokens,
        cache_savings_micro_eur, cache_surcharge_micro_eur)
      select org_id, substr(record->>'created', 1, 10)::date, sum(requests),
        sum(sign * (record->>'cost_micro_eur')::bigint),
        coalesce(sum(sign * (record->>'prompt_tokens')::numeric), 0),
        coalesce(sum(sign * (record->>'completion_tokens')::numeric), 0),
        coalesce(sum(sign * (record->>'audio_seconds')::numeric), 0),
        coalesce(sum(sign * (record->>'characters')::numeric), 0),
        coalesce(sum(sign * (record->>'cached_tokens')::numeric), 0),
        coalesce(sum(sign * (record->>'cache_write_tokens')::numeric), 0),
        coalesce(sum(sign * greatest((record->>'cache_savings_micro_eur')::numeric, 0)), 0),
        coalesce(sum(sign * greatest(-(record->>'cache_savings_micro_eur')::numeric, 0)), 0)
      from billed
      group by 1, 2 order by 1, 2
      on conflict (org_id, day) do update set
        requests = sovra_usage_daily.requests + excluded.requests,
        cost_micro_eur = sovra_usage_daily.cost_micro_eur + excluded.cost_micro_eur,
        prompt_tokens = sovra_usage_daily.prompt_tokens + excluded.prompt_tokens,
        completion_tokens = sovra_usage_daily.completion_tokens + excluded.completion_tokens,
        audio_seconds = sovra_usage_daily.audio_seconds + excluded.audio_seconds,
        characters = sovra_usage_daily.characters + excluded.characters,
        cached_tokens = sovra_usage_daily.cached_tokens + excluded.cached_tokens,
        cache_write_tokens = sovra_usage_daily.cache_write_tokens + excluded.cache_write_tokens,
        cache_savings_micro_eur = sovra_usage_daily.cache_savings_micro_eur +
          excluded.cache_savings_micro_eur,
        cache_surcharge_micro_eur = sovra_usage_daily.cache_surcharge_micro_eur +
          excluded.cache_surcharge_micro_eur
    ), rate as (
      insert into sovra_rate_buckets (minute, key_id, requests)
      select (b->>'m')::bigint, b->>'k', (b->>'n')::bigint
      from jsonb_array_elements(${buckets}) as b
      order by 1, 2
      on conflict (minute, key_id) do update
        set requests = sovra_rate_buckets.requests + excluded.requests
    ), admitted as (
      insert into sovra_admissions (id, instance, record)
      select a->'record'->>'id', a->>'instance', a->'record'
      from jsonb_array_elements(${admitted}) as a
      order by 1
      on conflict (id) do nothing
    ), progressed as (
      update sovra_admissions a set record = p->'record'
      from jsonb_array_elements(${progressed}) as p
      where a.id = p->'record'->>'id'
    ), closed as (
      delete from sovra_admissions
      where id in (select r->>'id' from batch)
    )
    select count(*)::int as inserted from inserted`;
  return row?.inserted ?? 0;
}

/**
 * Whether a failed write is worth retrying later (the database is away, restarting, or
 * deadlocked) rather than a fault of the data itself (SQLSTATE classes 22 and 23).
 */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return true;
  return !/^(22|23)/.test(code);
}

/**
 * A pooled connection the server closed (a restart, an administrator's command): postgres.js
 * drops it when the error surfaces, and an immediate retry runs on another one.
 */
export function isDeadConnection(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return false;
  return /^(57P0[123]|08\d{3})$/.test(code) ||
    ["ECONNRESET", "EPIPE", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED"]
      .includes(code);
}

/** Retries of a call that met dead pooled connections: one for each of a pool's connections. */
export const DEAD_CONNECTION_RETRIES = 10;

/** Runs `op` again at once while it fails on a dead pooled connection (a bounded number). */
export async function onLiveConnection<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (attempt >= DEAD_CONNECTION_RETRIES || !isDeadConnection(error)) throw error;
    }
  }
}
