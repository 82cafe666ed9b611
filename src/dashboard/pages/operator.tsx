/**
 * Operator: every organization with its balance and state, create an organization, suspend and
 * restore one, revoke any key by id, the audit outside organizations.
 */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { createOrg, listAllOrgs } from "../areas/operator.ts";
import { restoreOrg, revokeAnyKey, suspendOrg } from "../areas/operator_actions.ts";
import { globalAudit } from "../areas/audit_log.ts";
import { formatEur, parseEur } from "../money.ts";
import { formError, formFields } from "./form.ts";
import { badInput } from "../errors.ts";
import { GatewayError } from "../../errors.ts";
import { AuditTable } from "./audit.tsx";
import { ActionsHeader, Notice, ScrollRegion } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; notice?: string } = {},
) {
  const orgs = await listAllOrgs(deps, c.var.viewer);
  const suspended = new Map<string, string>();
  for (const o of orgs) {
    const at = (await deps.control.getOrgSettings(o.id)).suspended_at;
    if (at) suspended.set(o.id, at);
  }
  const audit = await globalAudit(deps, c.var.viewer, 50);
  const frame = await frameFor(deps, c.var.viewer, undefined, "All organizations", "operator");
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.notice && <Notice>{extra.notice}</Notice>}
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
                <th>State</th>
                <ActionsHeader />
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
                  <td>
                    {suspended.has(o.id)
                      ? <span class="pill error">suspended</span>
                      : <span class="pill ok">active</span>}
                  </td>
                  <td>
                    {suspended.has(o.id)
                      ? (
                        <form
                          method="post"
                          action={`/operator/orgs/${o.id}/restore`}
                          class="inline"
                        >
                          <button type="submit" class="secondary" aria-label={`Restore ${o.name}`}>
                            Restore
                          </button>
                        </form>
                      )
                      : (
                        <form
                          method="post"
                          action={`/operator/orgs/${o.id}/suspend`}
                          class="inline"
                          hx-confirm={`Suspend “${o.name}”? Its API keys are refused (403) within 30 s.`}
                        >
                          <button type="submit" class="danger" aria-label={`Suspend ${o.name}`}>
                            Suspend
                          </button>
                        </form>
                      )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>
      <div class="panel">
        <h2>Revoke any API key</h2>
        <form
          method="post"
          action="/operator/keys/revoke"
          class="row"
          hx-confirm="Revoke this key? Requests with it fail within 30 s."
        >
          <label>
            Key id<input name="key" required maxlength={100} placeholder="key_…" />
          </label>
          <button type="submit" class="danger">Revoke</button>
        </form>
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
  // The operator sees every organization: an unknown id is a message on the page, not a 404.
  const action = (run: (c: Context<DashEnv>) => Promise<string>) => async (c: Context<DashEnv>) => {
    try {
      return await render(c, deps, { notice: await run(c) });
    } catch (error) {
      const e = error instanceof GatewayError && error.status === 404 ? error : formError(error);
      return await render(c, deps, { error: e.message, status: e.status });
    }
  };
  app.post(
    "/operator/orgs/:org/suspend",
    action(async (c) => {
      await suspendOrg(deps, c.var.viewer, c.req.param("org") ?? "");
      return "Suspended: its keys are refused within 30 s.";
    }),
  );
  app.post(
    "/operator/orgs/:org/restore",
    action(async (c) => {
      await restoreOrg(deps, c.var.viewer, c.req.param("org") ?? "");
      return "Restored: its keys work again within 30 s.";
    }),
  );
  app.post(
    "/operator/keys/revoke",
    action(async (c) => {
      const key = (await formFields(c)).key?.trim() ?? "";
      const revoked = await revokeAnyKey(deps, c.var.viewer, key);
      return `Key ${revoked.id} of ${revoked.org} revoked: requests with it fail within 30 s.`;
    }),
  );
}
