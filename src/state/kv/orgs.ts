/** Organizations and credits on Deno KV: credits are two monotonic `KvU64` sums. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import { orgView, u64 } from "./kv_values.ts";
import type { OrgStore } from "../store.ts";
import type { OrgRecord, OrgView } from "../records.ts";

export function kvOrgStore(kv: Deno.Kv): OrgStore {
  const getOrg = async (orgId: string): Promise<OrgView | undefined> => {
    const [org, granted, spent] = await kv.getMany([
      kvKeys.org(orgId),
      kvKeys.credit(orgId, "granted"),
      kvKeys.credit(orgId, "spent"),
    ]);
    if (!org?.value) return undefined;
    return orgView(org.value as OrgRecord, u64(granted), u64(spent));
  };
  return {
    async createOrg(org, creditsMicroEur) {
      await withLockRetry(async () => {
        const op = kv.atomic()
          .check({ key: kvKeys.org(org.id), versionstamp: null })
          .set(kvKeys.org(org.id), org)
          .sum(kvKeys.credit(org.id, "granted"), creditsMicroEur)
          .sum(kvKeys.credit(org.id, "spent"), 0n);
        const result = await op.commit();
        if (!result.ok) throw new Error(`Organization '${org.id}' already exists.`);
      });
      return (await getOrg(org.id))!;
    },
    getOrg,
    async listOrgs() {
      const out: OrgView[] = [];
      for await (const entry of kv.list<OrgRecord>({ prefix: kvKeys.orgPrefix() })) {
        const view = await getOrg(entry.value.id);
        if (view) out.push(view);
      }
      return out;
    },
    async topUp(orgId, microEur) {
      await withLockRetry(() =>
        kv.atomic().sum(kvKeys.credit(orgId, "granted"), microEur).commit()
      );
      const view = await getOrg(orgId);
      return BigInt(view?.balance_micro_eur ?? 0);
    },
  };
}
