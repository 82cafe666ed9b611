/**
 * Single sign-on (owners): the organization's identity provider, the rules that admit its
 * users with a role, "require SSO", and a test sign-in that shows the claims received.
 */
import type { Context } from "hono";
import type { OrgPage } from "./nav.ts";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { can } from "../access.ts";
import { formError, formFields } from "./form.ts";
import { orgSsoView, removeOrgBinding, rulesText, setOrgBinding } from "../areas/sso_settings.ts";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; saved?: boolean; form?: Record<string, string> } = {},
) {
  const access = c.var.access;
  const { binding, providers } = await orgSsoView(deps, access);
  const frame = await frameFor(deps, c.var.viewer, access, "Single sign-on", "sso");
  const base = `/orgs/${access.org.id}/sso`;
  const form = extra.form;
  const chosen = form?.provider ?? binding?.provider ?? "";
  const requireSso = form ? form.require_sso === "true" : binding?.require_sso ?? false;
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.saved && <div class="notice" role="status">Saved.</div>}
      <div class="panel">
        <h2>Identity provider</h2>
        {providers.length === 0
          ? (
            <p class="muted">
              No identity provider is configured yet: the operator adds one (issuer, client id,
              secret) first.
            </p>
          )
          : (
            <form method="post" action={base} id="sso-binding">
              <label>
                Provider<select name="provider">
                  {providers.map((p) => (
                    <option value={p.id} selected={p.id === chosen}>{p.name} ({p.id})</option>
                  ))}
                </select>
              </label>
              <label>
                Verified e-mail domains, one per line as <code>domain = role</code>
                <textarea name="domains" rows={3} placeholder="example.eu = viewer">
                  {form?.domains ?? (binding ? rulesText(binding.domains) : "")}
                </textarea>
              </label>
              <label>
                Groups (values of the provider's groups claim), one per line as{" "}
                <code>group = role</code>
                <textarea name="groups" rows={3} placeholder="sovra-admins = admin">
                  {form?.groups ?? (binding ? rulesText(binding.groups) : "")}
                </textarea>
              </label>
              <label class="check">
                <input type="checkbox" name="require_sso" value="true" checked={requireSso} />
                Require single sign-on: passwords stop working for members (owners keep theirs as
                the break-glass way in)
              </label>
              <button type="submit">Save</button>
            </form>
          )}
        <p class="muted">
          A person signing in through the provider gets an account and a membership when a rule
          matches (the highest role of the matching rules); memberships made this way follow the
          rules at every sign-in. Roles: owner, admin, viewer.
        </p>
      </div>
      {providers.length > 0 && (
        <div class="panel">
          <h2>Test sign-in</h2>
          <p>
            Sign in at the provider (as any user) and see the claims Sovra receives and the role the
            saved rules give; nothing is created.
          </p>
          <p class="row">
            {providers.map((p) => (
              <a
                class="button secondary"
                hx-boost="false"
                href={`/sso/test?provider=${encodeURIComponent(p.id)}&org=${access.org.id}`}
              >
                Test sign-in with {p.name}
              </a>
            ))}
          </p>
        </div>
      )}
      {binding && (
        <div class="panel">
          <form
            method="post"
            action={`${base}/remove`}
            class="inline"
            hx-confirm="Stop signing in with this provider? Members keep their accounts and roles."
          >
            <button type="submit" class="danger">Unbind {binding.provider}</button>
          </form>
        </div>
      )}
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

export const ssoPage: OrgPage = {
  path: "sso",
  title: "Single sign-on",
  visible: (access) => can(access, "manage_sso"),
  register(router, deps) {
    router.get("/sso", (c) => render(c, deps));
    router.post("/sso", async (c) => {
      const form = await formFields(c);
      try {
        await setOrgBinding(deps, c.var.access, c.var.viewer, {
          provider: form.provider,
          domains: form.domains,
          groups: form.groups,
          require_sso: form.require_sso === "true",
        });
        return await render(c, deps, { saved: true });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status, form });
      }
    });
    router.post("/sso/remove", async (c) => {
      try {
        await removeOrgBinding(deps, c.var.access, c.var.viewer);
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
      return c.redirect(`/orgs/${c.var.access.org.id}/sso`, 303);
    });
  },
};
