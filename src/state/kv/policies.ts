/** Organization and key policies on Deno KV, each change committed with its audit entry. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import { sequentialId } from "../../util/ids.ts";
import type { KeyPolicy, OrgPolicy, PolicyAuditEntry, PolicyStore } from "../policy_store.ts";

export function kvPolicyStore(kv: Deno.Kv): PolicyStore {
  /** Sets `key` to `value` (or deletes it) and appends the audit entry, atomically. */
  const change = async (
    key: Deno.KvKey,
    value: OrgPolicy | KeyPolicy | null,
    entry: Omit<PolicyAuditEntry, "id" | "at" | "before" | "after">,
  ): Promise<PolicyAuditEntry> => {
    return await withLockRetry(async () => {
      for (;;) {
        const current = await kv.get<OrgPolicy | KeyPolicy>(key);
        const audit: PolicyAuditEntry = {
          id: sequentialId("pa_"),
          at: new Date().toISOString(),
          ...entry,
          before: current.value ?? null,
          after: value,
        };
        const op = kv.atomic().check(current).set(kvKeys.policyAudit(entry.org, audit.id), audit);
        if (value === null) op.delete(key);
        else op.set(key, value);
        if ((await op.commit()).ok) return audit;
      }
    });
  };
  return {
    async getOrgPolicy(orgId) {
      return (await kv.get<OrgPolicy>(kvKeys.orgPolicy(orgId))).value ?? undefined;
    },
    putOrgPolicy(orgId, policy, actor) {
      return change(kvKeys.orgPolicy(orgId), policy, { org: orgId, key_id: null, actor });
    },
    async getKeyPolicy(keyId) {
      return (await kv.get<KeyPolicy>(kvKeys.keyPolicy(keyId))).value ?? undefined;
    },
    putKeyPolicy(orgId, keyId, policy, actor) {
      return change(kvKeys.keyPolicy(keyId), policy, { org: orgId, key_id: keyId, actor });
    },
    async listPolicyAudit(orgId, limit) {
      const out: PolicyAuditEntry[] = [];
      const entries = kv.list<PolicyAuditEntry>(
        { prefix: kvKeys.policyAuditPrefix(orgId) },
        { reverse: true, limit },
      );
      for await (const entry of entries) out.push(entry.value);
      return out;
    },
  };
}
