/**
 * The hot path on Deno KV: the gate's one `getMany` (two rate buckets + two credit counters)
 * and the group-committed writes (rate bucket sums; settle = debit + metadata + daily
 * aggregates in one atomic).
 */
import { kvKeys, type UsageField } from "./kv_keys.ts";
import type { GroupCommitter, Mutation } from "./group_commit.ts";
import { u64 } from "./kv_values.ts";
import type { MeteringStore } from "../store.ts";
import type { RequestRecord } from "../records.ts";
import { budgetPeriodIds } from "../../util/budget_period.ts";

const U64_MOD = 1n << 64n;

export function kvMeteringStore(kv: Deno.Kv, writer: GroupCommitter): MeteringStore {
  /** Requests with a checkpoint written (or on its way): their settle deletes it. */
  const checkpointed = new Set<string>();
  return {
    async readGate(keyId, orgId, minute, budgetPeriodId) {
      const keys: Deno.KvKey[] = [
        kvKeys.rate(minute, keyId),
        kvKeys.rate(minute - 1, keyId),
        kvKeys.credit(orgId, "granted"),
        kvKeys.credit(orgId, "spent"),
      ];
      if (budgetPeriodId !== undefined) keys.push(kvKeys.keySpend(keyId, budgetPeriodId));
      const [current, previous, granted, spent, keySpent] = await kv.getMany(keys);
      return {
        rateCurrent: Number(u64(current)),
        ratePrevious: Number(u64(previous)),
        balanceMicroEur: u64(granted) - u64(spent),
        keySpentMicroEur: keySpent ? u64(keySpent) : 0n,
      };
    },
    async readKeySpend(keyId, budgetPeriodId) {
      return u64(await kv.get(kvKeys.keySpend(keyId, budgetPeriodId)));
    },
    countRequest(keyId, minute, onSent, admission, deferrable = false) {
      const mutations: Mutation[] = [{ type: "sum", key: kvKeys.rate(minute, keyId), value: 1n }];
      // The admission record rides in the rate increment's commit, listed in that commit's
      // admission row (admission_rows.ts). An answer waits for it: no commit interval, unless
      // its route answers later than the interval anyway (then `hurryWrites` if it does not).
      if (!admission) return writer.write(mutations, 64, onSent);
      return writer.write(mutations, 900, onSent, !deferrable, { admission });
    },
    hurryWrites() {
      writer.hurry();
    },
    checkpointAdmission(admission) {
      checkpointed.add(admission.record.id);
      const key = kvKeys.admissionProgress(admission.record.id);
      return writer.write([{ type: "set", key, value: admission }], 2_000);
    },
    settle(record, onSent) {
      const mutations = settleMutations(record);
      const progress: Mutation[] = checkpointed.delete(record.id)
        ? [{ type: "delete", key: kvKeys.admissionProgress(record.id), existing: true }]
        : [];
      mutations.push(...progress);
      // Closes the request's admission row when it is the row's last open request. A request is
      // billed once: its record must not exist yet, unless a recovery billed its estimate.
      return writer.write(mutations, 900, onSent, false, { settles: record.id }, {
        key: kvKeys.request(record.org, record.id),
        instead: (existing) => [
          ...correctionMutations(existing as RequestRecord, record),
          ...progress,
        ],
      });
    },
    settleAdmitted(record, onSent) {
      const key = kvKeys.request(record.org, record.id);
      const written = writer.settleAdmitted(record.id, settleMutations(record), 900, onSent, {
        key,
        instead: (existing) => correctionMutations(existing as RequestRecord, record),
      });
      return written && { written, answerable: written };
    },
  };
}

/**
 * What a request's real settle writes where a record is already there: over a recovery's
 * estimate (`recovered`), the real record and the difference of every sum (the request itself is
 * counted already); over anything else (settled before: a replay), nothing.
 */
export function correctionMutations(existing: RequestRecord, record: RequestRecord): Mutation[] {
  if (existing.recovered !== true || record.recovered === true) return [];
  const day = record.created.slice(0, 10);
  const mutations: Mutation[] = [
    { type: "set", key: kvKeys.request(record.org, record.id), value: record },
  ];
  const delta = (now: number | null, before: number | null) =>
    ((BigInt(now ?? 0) - BigInt(before ?? 0)) % U64_MOD + U64_MOD) % U64_MOD;
  const cost = delta(record.cost_micro_eur, existing.cost_micro_eur);
  if (cost !== 0n) {
    // KvU64 sums wrap modulo 2^64: adding 2^64 − d takes d off.
    mutations.push(
      { type: "sum", key: kvKeys.credit(record.org, "spent"), value: cost },
      { type: "sum", key: kvKeys.usageDay(record.org, day, "cost_micro_eur"), value: cost },
      ...keySpendMutations(record, cost),
    );
  }
  const fields = ["prompt_tokens", "completion_tokens", "audio_seconds", "characters"] as const;
  for (const field of fields) {
    const change = delta(record[field], existing[field]);
    if (change !== 0n) {
      mutations.push({ type: "sum", key: kvKeys.usageDay(record.org, day, field), value: change });
    }
  }
  return mutations;
}

/** Debit + metadata + daily aggregates of one settled request. */
export function settleMutations(record: RequestRecord): Mutation[] {
  const day = record.created.slice(0, 10);
  const mutations: Mutation[] = [
    { type: "set", key: kvKeys.request(record.org, record.id), value: record },
    // A row standing for several refused requests counts each of them.
    {
      type: "sum",
      key: kvKeys.usageDay(record.org, day, "requests"),
      value: BigInt(record.refused_count ?? 1),
    },
  ];
  if (record.cost_micro_eur > 0) {
    const cost = BigInt(record.cost_micro_eur);
    mutations.push(
      { type: "sum", key: kvKeys.credit(record.org, "spent"), value: cost % U64_MOD },
      { type: "sum", key: kvKeys.usageDay(record.org, day, "cost_micro_eur"), value: cost },
      ...keySpendMutations(record, cost % U64_MOD),
    );
  }
  // KV sums are unsigned: the cache's savings and surcharges are summed apart.
  const savings = record.cache_savings_micro_eur;
  const aggregates: Array<[UsageField, number | null]> = [
    ["prompt_tokens", record.prompt_tokens],
    ["completion_tokens", record.completion_tokens],
    ["audio_seconds", record.audio_seconds],
    ["characters", record.characters],
    ["cached_tokens", record.cached_tokens],
    ["cache_write_tokens", record.cache_write_tokens],
    ["cache_savings_micro_eur", savings > 0 ? savings : null],
    ["cache_surcharge_micro_eur", savings < 0 ? -savings : null],
  ];
  for (const [field, value] of aggregates) {
    if (value) {
      mutations.push({
        type: "sum",
        key: kvKeys.usageDay(record.org, day, field),
        value: BigInt(value),
      });
    }
  }
  return mutations;
}

/** The key's spend in each budget period the request counts in (day, week, month, total). */
function keySpendMutations(record: RequestRecord, value: bigint): Mutation[] {
  return budgetPeriodIds(record.created).map((period) => ({
    type: "sum" as const,
    key: kvKeys.keySpend(record.key_id, period),
    value,
  }));
}
