/**
 * The router-pin area on Deno KV (`../router_pin_store.ts`): one entry per pin, written with
 * `expireIn` so KV drops it after its expiry; reads check the expiry too (KV may keep an
 * expired entry readable for a while).
 */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { RouterPin, RouterPinStore } from "../router_pin_store.ts";

/** `getMany` reads at most 10 keys; an atomic write holds at most 1,000 mutations. */
const READ_BATCH = 10;
const WRITE_BATCH = 500;

interface StoredPin {
  model: string;
  expires: number;
}

export function kvRouterPinStore(kv: Deno.Kv, now: () => number = Date.now): RouterPinStore {
  return {
    async getRouterPins(keys, at) {
      const out: RouterPin[] = [];
      for (let i = 0; i < keys.length; i += READ_BATCH) {
        const batch = keys.slice(i, i + READ_BATCH);
        const entries = await kv.getMany<StoredPin[]>(batch.map((k) => kvKeys.routerPin(k)));
        entries.forEach((entry, k) => {
          if (entry.value && entry.value.expires > at) out.push({ key: batch[k]!, ...entry.value });
        });
      }
      return out;
    },
    async putRouterPins(pins) {
      for (let i = 0; i < pins.length; i += WRITE_BATCH) {
        const batch = pins.slice(i, i + WRITE_BATCH);
        await withLockRetry(() => {
          const op = kv.atomic();
          for (const pin of batch) {
            const value: StoredPin = { model: pin.model, expires: pin.expires };
            op.set(kvKeys.routerPin(pin.key), value, {
              expireIn: Math.max(1, pin.expires - now()),
            });
          }
          return op.commit();
        });
      }
    },
  };
}
