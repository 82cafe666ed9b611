/**
 * What an operator does to contain a breach or fix a mistake, in any organization, from the
 * dashboard's operator pages or the admin CLI (actor `cli`): revoke any API key, suspend and
 * restore an organization (its keys get 403 `organization_suspended` within the key cache
 * time), and correct a grant with a compensating ledger entry that carries its reason (the
 * grant itself is never edited). Each is audited in the organization's log.
 */
import type { DashboardDeps, Viewer } from "../deps.ts";
import type { OrgView } from "../../state/records.ts";
import type { ApiKeyRecord } from "../../state/records.ts";
import { sequentialId } from "../../util/ids.ts";
import { audit } from "../audit.ts";
import { badInput, notFound } from "../errors.ts";
import { requireOperator } from "./operator.ts";

type ActionDeps = Pick<DashboardDeps, "store" | "control" | "now">;

/** Who acts: a signed-in operator (checked), or the admin CLI (`cli`). */
export type Operator = Viewer | "cli";

function actorOf(operator: Operator): string {
  if (operator === "cli") return "cli";
  requireOperator(operator);
  return operator.user.email;
}

async function orgOr404(deps: ActionDeps, orgId: string): Promise<OrgView> {
  const org = await deps.store.getOrg(orgId);
  if (!org) throw notFound("Organization");
  return org;
}

export interface OrgState {
  org: string;
  suspended: boolean;
  suspended_at: string | null;
}

/** Suspends the organization: its keys are refused from their next lookup (≤ 30 s). */
export async function suspendOrg(
  deps: ActionDeps,
  operator: Operator,
  orgId: string,
  reason?: string | null,
): Promise<OrgState> {
  const actor = actorOf(operator);
  const org = await orgOr404(deps, orgId);
  const note = reason?.trim().slice(0, 200) || null;
  const current = (await deps.control.getOrgSettings(org.id)).suspended_at;
  const at = current ?? new Date(deps.now()).toISOString();
  if (current === null) {
    await deps.control.setOrgSuspension(org.id, at);
    await audit(deps, org.id, actor, "org.suspended", org.id, { reason: note });
  }
  return { org: org.id, suspended: true, suspended_at: at };
}

/** Restores a suspended organization: its keys work again from their next lookup (≤ 30 s). */
export async function restoreOrg(
  deps: ActionDeps,
  operator: Operator,
  orgId: string,
): Promise<OrgState> {
  const actor = actorOf(operator);
  const org = await orgOr404(deps, orgId);
  const current = (await deps.control.getOrgSettings(org.id)).suspended_at;
  if (current !== null) {
    await deps.control.setOrgSuspension(org.id, null);
    await audit(deps, org.id, actor, "org.restored", org.id, { suspended_at: current });
  }
  return { org: org.id, suspended: false, suspended_at: null };
}

/** Revokes any organization's key by id (the request API refuses it within ≤ 30 s). */
export async function revokeAnyKey(
  deps: ActionDeps,
  operator: Operator,
  keyId: string,
): Promise<ApiKeyRecord> {
  const actor = actorOf(operator);
  // The store stamps a revocation with its own clock and keeps the first one: a time from
  // before this call says this call revoked it (audited once, not again for a revoked key).
  const before = Date.now();
  const revoked = await deps.store.revokeApiKey(keyId);
  if (!revoked) throw notFound("API key");
  if (revoked.revoked_at !== null && Date.parse(revoked.revoked_at) >= before) {
    await audit(deps, revoked.org, actor, "key.revoked", revoked.id, {
      name: revoked.name,
      by: "operator",
    });
  }
  return revoked;
}

/**
 * A correction of the organization's granted credit: a ledger entry of its own with the
 * (possibly negative) exact micro-EUR amount and a reason, optionally naming the grant it
 * corrects. The granted total never drops below zero; the balance may (requests then get 402).
 */
export async function correctCredits(
  deps: ActionDeps,
  operator: Operator,
  input: {
    org: string;
    amount_micro_eur: number;
    reason: string;
    corrects?: string | null | undefined;
  },
): Promise<{ org: string; id: string; amount_micro_eur: number; balance_micro_eur: number }> {
  const actor = actorOf(operator);
  const org = await orgOr404(deps, input.org);
  const amount = input.amount_micro_eur;
  if (!Number.isSafeInteger(amount) || amount === 0) {
    throw badInput(
      "The correction must be a non-zero whole number of micro-EUR (negative takes credit back).",
      "amount_micro_eur",
    );
  }
  const reason = input.reason.trim();
  if (reason.length < 1 || reason.length > 200 || /\p{Cc}/u.test(reason)) {
    throw badInput("Give the reason for the correction (1 to 200 characters).", "reason");
  }
  const corrects = input.corrects?.trim() || null;
  if (corrects !== null) {
    const grants = await deps.control.listLedger(org.id, 10_000);
    const grant = grants.find((g) => g.id === corrects);
    if (!grant || grant.kind === "correction") {
      throw badInput(`No grant '${corrects}' in this organization's ledger.`, "corrects");
    }
  }
  const now = deps.now();
  const id = sequentialId("led_", now);
  const balance = await deps.control.correctCredits({
    id,
    org: org.id,
    created: new Date(now).toISOString(),
    amount_micro_eur: amount,
    actor,
    note: reason,
    kind: "correction",
    corrects,
  });
  if (balance === undefined) {
    throw badInput(
      `The correction would take the organization's granted credit (${org.granted_micro_eur} micro-EUR) below zero.`,
      "amount_micro_eur",
    );
  }
  await audit(deps, org.id, actor, "credits.corrected", id, {
    amount_micro_eur: amount,
    reason,
    corrects,
  });
  return { org: org.id, id, amount_micro_eur: amount, balance_micro_eur: Number(balance) };
}
