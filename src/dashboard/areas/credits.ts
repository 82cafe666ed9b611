/**
 * Credits: the ledger (grants, corrections and daily spend), operator grants, the org's
 * settings. Corrections are `operator_actions.ts`.
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { sequentialId } from "../../util/ids.ts";
import { audit } from "../audit.ts";
import { badInput } from "../errors.ts";
import type { OrgSettings } from "../../state/account_records.ts";
import { lastDays } from "./days.ts";
import { sessionHasSecondFactor } from "./two_factor.ts";

export interface LedgerLine {
  time: string;
  kind: "grant" | "correction" | "spend";
  /** Positive for grants, negative for a day's spend; a correction either way. */
  amount_micro_eur: number;
  actor: string | null;
  /** A grant's note, a correction's reason. */
  note: string | null;
  /** The ledger entry's id (grants and corrections). */
  id?: string;
  /** A correction's grant, when it names one. */
  corrects?: string | null;
}

/** Grants (newest first) merged with one spend line per day of the last `days` days. */
export async function ledger(
  deps: DashboardDeps,
  access: OrgAccess,
  days = 90,
): Promise<{ balance_micro_eur: number; settings: OrgSettings; lines: LedgerLine[] }> {
  const org = (await deps.store.getOrg(access.org.id)) ?? access.org;
  const range = lastDays(deps.now(), days);
  const [grants, usage, settings] = await Promise.all([
    deps.control.listLedger(org.id, 1000),
    deps.control.usageDays(org.id, range[0]!, range.at(-1)!),
    deps.control.getOrgSettings(org.id),
  ]);
  const lines: LedgerLine[] = [
    ...grants.map((g) => ({
      time: g.created,
      kind: g.kind === "correction" ? "correction" as const : "grant" as const,
      amount_micro_eur: g.amount_micro_eur,
      actor: g.actor,
      note: g.note,
      id: g.id,
      ...(g.kind === "correction" ? { corrects: g.corrects ?? null } : {}),
    })),
    ...usage.filter((u) => u.cost_micro_eur > 0).map((u) => ({
      time: `${u.day}T23:59:59.999Z`,
      kind: "spend" as const,
      amount_micro_eur: -u.cost_micro_eur,
      actor: null,
      note: `${u.requests} requests`,
    })),
  ].sort((a, b) => b.time.localeCompare(a.time));
  return { balance_micro_eur: org.balance_micro_eur, settings, lines };
}

/**
 * A credit grant: an operator's in the dashboard, and the admin CLI's `credits topup` (actor
 * `cli`): one ledger line with the balance in one atomic step, then a `credits.granted` entry in
 * the control-plane audit log.
 */
export async function grantCredits(
  deps: Pick<DashboardDeps, "control" | "now">,
  access: OrgAccess,
  viewer: Viewer | { user: { email: string } },
  input: { amount_micro_eur: number; note?: string | null | undefined },
): Promise<{ org: string; balance_micro_eur: number }> {
  if ("memberships" in viewer) requirePermission(access, "operate", "granting credits");
  const amount = input.amount_micro_eur;
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw badInput("The amount must be a positive whole number of micro-EUR.", "amount_micro_eur");
  }
  const note = input.note?.trim().slice(0, 200) || null;
  const now = deps.now();
  const balance = await deps.control.grantCredits({
    id: sequentialId("led_", now),
    org: access.org.id,
    created: new Date(now).toISOString(),
    amount_micro_eur: amount,
    actor: viewer.user.email,
    note,
  });
  await audit(deps, access.org.id, viewer.user.email, "credits.granted", access.org.id, {
    amount_micro_eur: amount,
    note,
  });
  return { org: access.org.id, balance_micro_eur: Number(balance) };
}

/**
 * Owners set the low-balance threshold and whether two-factor sign-in is required; operators
 * set the RPM ceiling. Fields left undefined keep their value; null clears.
 */
export async function updateSettings(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  input: {
    low_balance_micro_eur?: number | null | undefined;
    rpm_ceiling?: number | null | undefined;
    require_2fa?: boolean | undefined;
  },
): Promise<OrgSettings> {
  const current = await deps.control.getOrgSettings(access.org.id);
  const next = { ...current };
  if (input.low_balance_micro_eur !== undefined) {
    requirePermission(access, "manage_members", "setting the low-balance warning");
    const v = input.low_balance_micro_eur;
    if (v !== null && (!Number.isSafeInteger(v) || v < 0)) {
      throw badInput("The threshold must be a non-negative amount.", "low_balance_micro_eur");
    }
    next.low_balance_micro_eur = v;
  }
  if (input.rpm_ceiling !== undefined) {
    requirePermission(access, "operate", "setting the RPM ceiling");
    const v = input.rpm_ceiling;
    if (v !== null && (!Number.isSafeInteger(v) || v < 1)) {
      throw badInput("The RPM ceiling must be a whole number of at least 1.", "rpm_ceiling");
    }
    next.rpm_ceiling = v;
  }
  if (input.require_2fa !== undefined) {
    requirePermission(access, "manage_members", "requiring two-factor sign-in");
    // Whoever turns it on keeps the organization: their own session must satisfy it.
    if (input.require_2fa && !await sessionHasSecondFactor(deps, viewer)) {
      throw badInput(
        "Turn on two-factor sign-in for your own account first (Account security).",
        "require_2fa",
      );
    }
    next.require_2fa = input.require_2fa;
  }
  await deps.control.setOrgSettings(access.org.id, next);
  await audit(deps, access.org.id, viewer.user.email, "org.settings_changed", access.org.id, {
    low_balance_micro_eur: next.low_balance_micro_eur,
    rpm_ceiling: next.rpm_ceiling,
    require_2fa: next.require_2fa,
  });
  return next;
}
