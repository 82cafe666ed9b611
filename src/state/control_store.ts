/**
 * The control-plane area of the state besides accounts: the credit ledger, the audit log,
 * per-organization settings, and the read-only usage queries the dashboard needs (ranges of
 * request metadata and of daily aggregates the gateway's settle already writes, so the
 * request path does no extra work for the dashboard). Semantics a backend must keep are
 * written on each method.
 */
import type { AuditEntry, LedgerEntry, OrgSettings, UsageDay } from "./account_records.ts";
import type { RequestRecord } from "./records.ts";

export interface ControlStore {
  /**
   * Adds `entry.amount_micro_eur` to the organization's granted credit and records the entry,
   * in one atomic step. Returns the new balance (granted − spent) in micro-EUR.
   */
  grantCredits(entry: LedgerEntry): Promise<bigint>;
  /**
   * A correction (`kind: "correction"`, a non-zero amount, the reason in `note`): adds the
   * amount — negative to take back a grant — to the granted total and records the entry, in
   * one atomic step; earlier entries are never changed. Undefined, and nothing written, when
   * the granted total would fall below zero. Else the new balance (which may be negative).
   */
  correctCredits(entry: LedgerEntry): Promise<bigint | undefined>;
  /** The organization's ledger entries, newest first (ids sort by time). */
  listLedger(orgId: string, limit: number): Promise<LedgerEntry[]>;

  appendAudit(entry: AuditEntry): Promise<void>;
  /** Newest first. `null` lists the entries that concern no organization. */
  listAudit(orgId: string | null, limit: number): Promise<AuditEntry[]>;

  /** The organization's settings; the defaults when never set. */
  getOrgSettings(orgId: string): Promise<OrgSettings>;
  /** Writes the settings except `suspended_at`, which stays as it is. */
  setOrgSettings(orgId: string, settings: OrgSettings): Promise<void>;
  /**
   * Suspends the organization (`suspendedAt`, an ISO time) or restores it (`null`), leaving
   * the other settings as they are.
   */
  setOrgSuspension(orgId: string, suspendedAt: string | null): Promise<void>;

  /** Request metadata created in [from, to), newest first, at most `limit` rows. */
  requestsBetween(orgId: string, from: Date, to: Date, limit: number): Promise<RequestRecord[]>;
  /** The daily aggregates of the days in [fromDay, toDay] (YYYY-MM-DD), oldest first; days
   * without traffic are left out. */
  usageDays(orgId: string, fromDay: string, toDay: string): Promise<UsageDay[]>;
}
