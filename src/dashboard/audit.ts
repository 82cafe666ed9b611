/** Writes one audit entry: who did what to which target. Never a secret. */
import { sequentialId } from "../util/ids.ts";
import type { AuditAction, AuditEntry } from "../state/account_records.ts";
import type { ControlStore } from "../state/control_store.ts";

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
