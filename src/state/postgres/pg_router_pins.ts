/**
 * The router-pin area on PostgreSQL (`../router_pin_store.ts`): one row per pin key, the
 * expiry in epoch milliseconds. Reads skip expired rows; a write drops the rows that expired
 * more than `SWEEP_AFTER_MS` ago, at most once per `SWEEP_EVERY_MS` per instance.
 */
import type { Db } from "./connect.ts";
import type { RouterPin, RouterPinStore } from "../router_pin_store.ts";

const SWEEP_EVERY_MS = 60_000;
const SWEEP_AFTER_MS = 3_600_000;

export function pgRouterPinStore(sql: Db, now: () => number = Date.now): RouterPinStore {
  let lastSweep = 0;
  return {
    async getRouterPins(keys, at) {
      if (keys.length === 0) return [];
      const rows = await sql<{ key: string; model: string; expires: bigint }[]>`
        select key, model, expires from sovra_router_pins
        where key = any(${keys as string[]}::text[]) and expires > ${at}`;
      return rows.map((r) => ({ key: r.key, model: r.model, expires: Number(r.expires) }));
    },
    async putRouterPins(pins) {
      if (pins.length === 0) return;
      // One row per key (the last pin of a key wins), in key order: concurrent writers lock
      // rows in the same order.
      const byKey = new Map<string, RouterPin>();
      for (const pin of pins) byKey.set(pin.key, pin);
      const rows = [...byKey.values()].sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
      await sql`
        insert into sovra_router_pins (key, model, expires)
        select p->>'key', p->>'model', (p->>'expires')::bigint
        from jsonb_array_elements(${JSON.stringify(rows)}::text::jsonb) as p
        on conflict (key) do update set model = excluded.model, expires = excluded.expires`;
      const t = now();
      if (t - lastSweep >= SWEEP_EVERY_MS) {
        lastSweep = t;
        await sql`delete from sovra_router_pins where expires < ${t - SWEEP_AFTER_MS}`;
      }
    },
  };
}
