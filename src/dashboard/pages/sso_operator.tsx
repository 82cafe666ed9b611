/** Operator: the identity providers organizations may sign in with (add, test, remove). */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { formError, formFields } from "./form.ts";
import {
  CALLBACK_PATH,
  operatorAddProvider,
  operatorProviders,
  operatorRemoveProvider,
} from "../areas/sso_settings.ts";
import { ActionsHeader, ScrollRegion } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; form?: Record<string, string> } = {},
) {
  const providers = await operatorProviders(deps, c.var.viewer);
  const frame = await frameFor(deps, c.var.viewer, undefined, "Identity providers", "sso");
  const f = extra.form ?? {};
  const callback = `${deps.publicUrl()}${CALLBACK_PATH}`;
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      <div class="panel">
        <h2>Add an OpenID Connect provider</h2>
        <p class="muted">
          Register Sovra at the provider as a confidential web client with the redirect URL{" "}
          <code>{callback}</code>, then enter its settings. The client secret stays in the
          environment variable you name (never in Sovra's store). docs/dashboard.md has Keycloak and
          Entra ID examples.
        </p>
        <form method="post" action="/operator/sso" id="sso-provider" class="grid2">
          <label>
            Id (in URLs)<input name="id" required value={f.id ?? ""} placeholder="keycloak-acme" />
          </label>
          <label>
            Button label<input name="name" value={f.name ?? ""} placeholder="Acme Keycloak" />
          </label>
          <label>
            Issuer URL<input
              name="issuer"
              required
              value={f.issuer ?? ""}
              placeholder="https://id.acme.eu/realms/acme"
            />
          </label>
          <label>
            Client id<input name="client_id" required value={f.client_id ?? ""} />
          </label>
          <label>
            Variable holding the client secret<input
              name="client_secret_env"
              required
              value={f.client_secret_env ?? ""}
              placeholder="ACME_OIDC_SECRET"
            />
          </label>
          <label>
            Scopes<input name="scopes" value={f.scopes ?? "openid email profile"} />
          </label>
          <label>
            Redirect URL<input name="redirect_url" required value={f.redirect_url ?? callback} />
          </label>
          <label>
            Groups claim<input name="groups_claim" value={f.groups_claim ?? "groups"} />
          </label>
          <label>
            E-mail verified claim<input
              name="email_verified_claim"
              value={f.email_verified_claim ?? "email_verified"}
            />
          </label>
          <div>
            <button type="submit">Add provider</button>
          </div>
        </form>
      </div>
      <div class="panel">
        <ScrollRegion label="Identity providers">
          <table id="sso-providers">
            <thead>
              <tr>
                <th>Id</th>
                <th>Issuer</th>
                <th>Client id</th>
                <th>Secret variable</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {providers.map((p) => (
                <tr>
                  <td>
                    <code>{p.id}</code> {p.name}
                  </td>
                  <td>{p.issuer}</td>
                  <td>{p.client_id}</td>
                  <td>
                    <code>{p.client_secret_env}</code>{" "}
                    {p.client_secret_set ? "" : <span class="pill error">not set</span>}
                  </td>
                  <td>
                    <a
                      class="button secondary"
                      hx-boost="false"
                      href={`/sso/test?provider=${encodeURIComponent(p.id)}`}
                    >
                      Test sign-in
                    </a>{" "}
                    <form
                      method="post"
                      action={`/operator/sso/${p.id}/remove`}
                      class="inline"
                      hx-confirm={`Remove the provider ${p.id}?`}
                    >
                      <button type="submit" class="danger">Remove</button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

export function registerSsoOperatorPages(app: Hono<DashEnv>, deps: DashboardDeps): void {
  app.get("/operator/sso", (c) => render(c, deps));
  app.post("/operator/sso", async (c) => {
    const form = await formFields(c);
    try {
      await operatorAddProvider(deps, c.var.viewer, form);
      return c.redirect("/operator/sso", 303);
    } catch (error) {
      const e = formError(error);
      return await render(c, deps, { error: e.message, status: e.status, form });
    }
  });
  app.post("/operator/sso/:id/remove", async (c) => {
    try {
      await operatorRemoveProvider(deps, c.var.viewer, c.req.param("id"));
    } catch (error) {
      const e = formError(error);
      return await render(c, deps, { error: e.message, status: e.status });
    }
    return c.redirect("/operator/sso", 303);
  });
}
