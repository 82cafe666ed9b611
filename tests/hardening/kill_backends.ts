/**
 * The two stores a kill -9 test runs the gateway on, each with the figures it checks after the
 * restart, read from the store itself: the organization's spent credit, its usage-day request
 * count and the admission records left open.
 */
import type { KvStore } from "../../src/state/kv/kv_store.ts";
import type { PgStore } from "../../src/state/postgres/pg_store.ts";
import type { Store } from "../../src/state/store.ts";

export interface KillBackend {
  env: Record<string, string>;
  store: Store;
  totals(org: string): Promise<{ spent: number; requests: number; admissions: number }>;
}

export function kvKillBackend(kvPath: string, store: KvStore): KillBackend {
  return {
    env: { SOVRA_KV: kvPath },
    store,
    async totals(org) {
      const [spent, requests] = await store.kv.getMany<Deno.KvU64[]>([
        ["credit", org, "spent"],
        ["usage_day", org, new Date().toISOString().slice(0, 10), "requests"],
      ]);
      let admissions = 0;
      for await (const _ of store.kv.list({ prefix: ["admission"] })) admissions++;
      return {
        spent: Number(spent?.value?.value ?? 0n),
        requests: Number(requests?.value?.value ?? 0n),
        admissions,
      };
    },
  };
}

export function pgKillBackend(url: string, spillPath: string, store: PgStore): KillBackend {
  return {
    env: { SOVRA_DATABASE_URL: url, SOVRA_SPILL_PATH: spillPath },
    store,
    async totals(org) {
      const [row] = await store.sql<{ spent: bigint; requests: bigint; admissions: bigint }[]>`
        select
          coalesce((select spent_micro_eur from sovra_credits where org_id = ${org}), 0) as spent,
          coalesce((select sum(requests) from sovra_usage_daily where org_id = ${org}), 0)::int8
            as requests,
          (select count(*) from sovra_admissions) as admissions`;
      return {
        spent: Number(row!.spent),
        requests: Number(row!.requests),
        admissions: Number(row!.admissions),
      };
    },
  };
}
