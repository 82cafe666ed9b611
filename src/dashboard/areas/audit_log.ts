/** The audit log of an organization (and, for operators, of actions outside any). */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import type { AuditEntry } from "../../state/account_records.ts";
import { requireOperator } from "./operator.ts";

export function orgAudit(
  deps: DashboardDeps,
  access: OrgAccess,
  limit: number,
): Promise<AuditEntry[]> {
  return deps.control.listAudit(access.org.id, limit);
}

export function globalAudit(
  deps: DashboardDeps,
  viewer: Viewer,
  limit: number,
): Promise<AuditEntry[]> {
  requireOperator(viewer);
  return deps.control.listAudit(null, limit);
}
