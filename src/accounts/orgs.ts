/**
 * Organizations and credits: the rules the admin CLI and the dashboard share (ids, names,
 * amounts). Amounts are integer micro-EUR, at most `Number.MAX_SAFE_INTEGER`.
 */
import { randomId } from "../util/ids.ts";
import type { OrgStore } from "../state/store.ts";
import type { OrgView } from "../state/records.ts";
import { AccountError } from "./account_error.ts";

const MAX_MICRO_EUR = BigInt(Number.MAX_SAFE_INTEGER);

function checkAmount(amount: bigint, what: string): void {
  if (amount < 0n || amount > MAX_MICRO_EUR) {
    throw new AccountError("invalid", `${what} must be between 0 and ${MAX_MICRO_EUR} micro-EUR.`);
  }
}

export async function createOrganization(
  store: OrgStore,
  input: { name: string; creditsMicroEur: bigint },
): Promise<OrgView> {
  const name = input.name.trim();
  if (name === "") throw new AccountError("invalid", "The organization needs a name.");
  checkAmount(input.creditsMicroEur, "Initial credits");
  return await store.createOrg(
    { id: randomId("org_", 12), name, created: new Date().toISOString() },
    input.creditsMicroEur,
  );
}

/** The organization, or `not_found`. */
export async function requireOrganization(store: OrgStore, orgId: string): Promise<OrgView> {
  const org = await store.getOrg(orgId);
  if (!org) throw new AccountError("not_found", `Organization '${orgId}' does not exist.`);
  return org;
}

/** Adds credits; returns the new balance in micro-EUR. */
export async function topUpCredits(
  store: OrgStore,
  orgId: string,
  microEur: bigint,
): Promise<bigint> {
  await requireOrganization(store, orgId);
  checkAmount(microEur, "A top-up");
  if (microEur === 0n) throw new AccountError("invalid", "A top-up must be positive.");
  return await store.topUp(orgId, microEur);
}
