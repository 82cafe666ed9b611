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

const U64_MOD = 1n << 64n;

export function kvMeteringStore(kv: Deno.Kv, writer: GroupCommitter): MeteringStore {
  return {
    async readGate(keyId, orgId, minute) {
      const [current, previous, granted, spent] = await kv.getMany([
        kvKeys.rate(minute, keyId),
        kvKeys.rate(minute - 1, keyId),
        kvKeys.credit(orgId, "granted"),
        kvKeys.credit(orgId, "spent"),
      ]);
      return {
        rateCurrent: Number(u64(current)),
        ratePrevious: Number(u64(previous)),
        balanceMicroEur: u64(granted) - u64(spent),
      };
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
    settle(record, onSent) {
      // Closes the request's admission row when it is the row's last open request.
      return writer.write(settleMutations(record), 900, onSent, false, { settles: record.id });
    },
  };
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
    );
  }
  const aggregates: Array<[UsageField, number | null]> = [
    ["prompt_tokens", record.prompt_tokens],
    ["completion_tokens", record.completion_tokens],
    ["audio_seconds", record.audio_seconds],
    ["characters", record.characters],
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
