/** Operator: every organization with its balance, create an organization, global audit. */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { createOrg, listAllOrgs } from "../areas/operator.ts";
import { globalAudit } from "../areas/audit_log.ts";
import { formatEur, parseEur } from "../money.ts";
import { formError, formFields } from "./form.ts";
import { badInput } from "../errors.ts";
import { AuditTable } from "./audit.tsx";
import { ScrollRegion } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number } = {},
) {
  const orgs = await listAllOrgs(deps, c.var.viewer);
  const audit = await globalAudit(deps, c.var.viewer, 50);
  const frame = await frameFor(deps, c.var.viewer, undefined, "All organizations", "operator");
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      <div class="panel">
        <h2>Create an organization</h2>
        <form method="post" action="/operator/orgs" class="row">
          <label>
            Name<input name="name" required maxlength={100} />
          </label>
          <label>
            Initial credit (EUR)<input name="credits_eur" inputmode="decimal" placeholder="0" />
          </label>
          <button type="submit">Create</button>
        </form>
      </div>
      <div class="panel">
        <h2>Organizations</h2>
        <ScrollRegion label="Organizations">
          <table id="orgs">
            <thead>
              <tr>
                <th>Organization</th>
                <th>Id</th>
                <th class="num">Balance</th>
                <th class="num">Granted</th>
                <th class="num">Spent</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {orgs.map((o) => (
                <tr>
                  <td>
                    <a href={`/orgs/${o.id}/credits`}>{o.name}</a>
                  </td>
                  <td>
                    <code>{o.id}</code>
                  </td>
                  <td class="num">{formatEur(o.balance_micro_eur)}</td>
                  <td class="num">{formatEur(o.granted_micro_eur)}</td>
                  <td class="num">{formatEur(o.spent_micro_eur)}</td>
                  <td>{o.created.slice(0, 10)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>
      <div class="panel">
        <h2>Sign-ins and users (outside any organization)</h2>
        <AuditTable entries={audit} />
      </div>
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

export function registerOperatorPages(app: Hono<DashEnv>, deps: DashboardDeps): void {
  app.get("/operator", (c) => render(c, deps));
  app.post("/operator/orgs", async (c) => {
    const form = await formFields(c);
    try {
      const credits = form.credits_eur?.trim() ? parseEur(form.credits_eur) : 0;
      if (credits === undefined) throw badInput("Give the credit in EUR.", "credits_eur");
      const org = await createOrg(deps, c.var.viewer, {
        name: form.name ?? "",
        credits_micro_eur: credits,
      });
      return c.redirect(`/orgs/${org.id}/credits`, 303);
    } catch (error) {
      const e = formError(error);
      return await render(c, deps, { error: e.message, status: e.status });
    }
  });
}
