/** Small readers shared by the KV areas. */
import type { OrgRecord, OrgView } from "../records.ts";

export function u64(entry: Deno.KvEntryMaybe<unknown> | undefined): bigint {
  const value = entry?.value;
  return value instanceof Deno.KvU64 ? value.value : 0n;
}

export function orgView(org: OrgRecord, granted: bigint, spent: bigint): OrgView {
  return {
    ...org,
    balance_micro_eur: Number(granted - spent),
    granted_micro_eur: Number(granted),
    spent_micro_eur: Number(spent),
  };
}
