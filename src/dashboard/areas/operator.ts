/** The operator's view: every organization with its balance; creating organizations. */
import type { DashboardDeps, Viewer } from "../deps.ts";
import { createOrganization } from "../../accounts/orgs.ts";
import { audit } from "../audit.ts";
import { badInput, forbidden } from "../errors.ts";
import { grantCredits } from "./credits.ts";
import type { OrgView } from "../../state/records.ts";

export function requireOperator(viewer: Viewer): void {
  if (!viewer.user.operator) throw forbidden("operator pages");
}

export async function listAllOrgs(deps: DashboardDeps, viewer: Viewer): Promise<OrgView[]> {
  requireOperator(viewer);
  return (await deps.store.listOrgs()).sort((a, b) => a.name.localeCompare(b.name));
}

export async function createOrg(
  deps: DashboardDeps,
  viewer: Viewer,
  input: { name: string; credits_micro_eur?: number | undefined },
): Promise<OrgView> {
  requireOperator(viewer);
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) {
    throw badInput("The name must be 1 to 100 characters.", "name");
  }
  const credits = input.credits_micro_eur ?? 0;
  if (!Number.isSafeInteger(credits) || credits < 0) {
    throw badInput("The credits must be a non-negative amount.", "credits_micro_eur");
  }
  const org = await createOrganization(deps.store, { name, creditsMicroEur: 0n });
  await audit(deps, org.id, viewer.user.email, "org.created", org.id, { name });
  if (credits > 0) {
    const access = { org, role: null, operator: true };
    await grantCredits(deps, access, viewer, {
      amount_micro_eur: credits,
      note: "Initial credit",
    });
  }
  return (await deps.store.getOrg(org.id))!;
}
