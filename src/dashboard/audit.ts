/** Writes audit entries: who did what to which target. Never a secret. */
import { sequentialId } from "../util/ids.ts";
import type { AuditAction, AuditEntry } from "../state/account_records.ts";
import type { ControlStore } from "../state/control_store.ts";
import type { AccountStore } from "../state/account_store.ts";

export async function audit(
  deps: { control: Pick<ControlStore, "appendAudit">; now: () => number },
  org: string | null,
  actor: string,
  action: AuditAction,
  target: string | null,
  detail: AuditEntry["detail"] = {},
): Promise<void> {
  const now = deps.now();
  await deps.control.appendAudit({
    id: sequentialId("aud_", now),
    created: new Date(now).toISOString(),
    org,
    actor,
    action,
    target,
    detail,
  });
}

/**
 * An entry about an account itself (its password, its second factor): in the log of every
 * organization the account belongs to, so their owners see it, or outside any organization
 * for an account without one.
 */
export async function auditAccount(
  deps: {
    control: Pick<ControlStore, "appendAudit">;
    accounts: Pick<AccountStore, "listMembershipsOfUser">;
    now: () => number;
  },
  user: { id: string; email: string },
  actor: string,
  action: AuditAction,
  detail: AuditEntry["detail"] = {},
): Promise<void> {
  const orgs = (await deps.accounts.listMembershipsOfUser(user.id)).map((m) => m.org);
  for (const org of orgs.length > 0 ? orgs : [null]) {
    await audit(deps, org, actor, action, user.email, detail);
  }
}
