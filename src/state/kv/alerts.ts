/** The spend-alert area on Deno KV (`alert_store.ts`): settings, claimed crossings, deliveries. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import {
  type AlertDelivery,
  type AlertSettings,
  type AlertStore,
  CLAIM_TTL_MS,
} from "../alert_store.ts";

export function kvAlertStore(kv: Deno.Kv): AlertStore {
  return {
    async getAlertSettings(org) {
      return (await kv.get<AlertSettings>(kvKeys.alertSettings(org))).value ?? undefined;
    },
    async putAlertSettings(settings) {
      await withLockRetry(() => kv.set(kvKeys.alertSettings(settings.org), settings));
    },
    claimAlert(org, episode, at) {
      return withLockRetry(async () => {
        const key = kvKeys.alertClaim(org, episode);
        const result = await kv.atomic().check({ key, versionstamp: null })
          .set(key, at, { expireIn: CLAIM_TTL_MS }).commit();
        return result.ok;
      });
    },
    async putDelivery(delivery) {
      await withLockRetry(async () => {
        const op = kv.atomic().set(kvKeys.alertDelivery(delivery.org, delivery.id), delivery);
        if (delivery.status === "pending") op.set(kvKeys.alertPending(delivery.id), delivery.org);
        else op.delete(kvKeys.alertPending(delivery.id));
        await op.commit();
      });
    },
    async listDeliveries(org, limit) {
      const out: AlertDelivery[] = [];
      const iter = kv.list<AlertDelivery>({ prefix: kvKeys.alertDeliveryPrefix(org) }, {
        reverse: true,
        limit,
      });
      for await (const entry of iter) out.push(entry.value);
      return out;
    },
    async pendingDeliveries(limit) {
      const out: AlertDelivery[] = [];
      for await (
        const entry of kv.list<string>({ prefix: kvKeys.alertPendingPrefix() }, { limit })
      ) {
        const id = entry.key[1] as string;
        const delivery = await kv.get<AlertDelivery>(kvKeys.alertDelivery(entry.value, id));
        if (delivery.value?.status === "pending") out.push(delivery.value);
      }
      return out;
    },
  };
}
