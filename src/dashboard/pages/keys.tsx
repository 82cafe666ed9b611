/** API keys: list, create (the full key shown once, with copy and snippets), revoke. */
import type { Context } from "hono";
import type { OrgPage } from "./nav.ts";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { type CreatedKey, createKey, listKeys, revokeKey } from "../areas/keys.ts";
import { can } from "../access.ts";
import { NewKeyPanel } from "./new_key_panel.tsx";
import { registerKeySettingsPage } from "./key_settings.tsx";
import { formError, formFields, optionalInt } from "./form.ts";
import { ActionsHeader, ScrollRegion } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { created?: CreatedKey; error?: string; status?: number } = {},
) {
  const access = c.var.access;
  const keys = await listKeys(deps, access);
  const frame = await frameFor(deps, c.var.viewer, access, "API keys", "keys");
  const manage = can(access, "manage_keys");
  // Operators revoke any organization's keys (containment); creating one stays the members'.
  const revoke = manage || can(access, "operate");
  const base = `/orgs/${access.org.id}/keys`;
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.created && <NewKeyPanel deps={deps} created={extra.created} />}
      {manage && (
        <div class="panel">
          <h2>Create a key</h2>
          <form method="post" action={base} class="row">
            <label>
              Name<input name="name" required maxlength={64} placeholder="e.g. production" />
            </label>
            <label>
              Requests per minute<input
                name="rpm"
                inputmode="numeric"
                placeholder={String(deps.config.defaultRpm)}
              />
            </label>
            <label>
              Expires<select name="expires_at">
                <option value="">never</option>
                <option value="30d">in 30 days</option>
                <option value="90d">in 90 days</option>
                <option value="365d">in a year</option>
              </select>
            </label>
            <button type="submit">Create key</button>
          </form>
        </div>
      )}
      <div class="panel">
        <h2>Keys</h2>
        <ScrollRegion label="Keys">
          <table id="keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th class="num">RPM</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>State</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr data-key-id={k.id}>
                  <td>
                    <a href={`${base}/${k.id}`}>{k.name ?? k.prefix}</a>
                  </td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td class="num">
                    {k.rpm_effective < k.rpm
                      ? <span title={`${k.rpm} set on the key`}>{k.rpm_effective} (ceiling)</span>
                      : k.rpm}
                  </td>
                  <td>{k.created.slice(0, 10)}</td>
                  <td>{k.last_used_day ?? <span class="muted">never</span>}</td>
                  <td title={k.expires_at ?? undefined}>
                    {k.expires_at
                      ? k.expires_at.slice(0, 16).replace("T", " ")
                      : <span class="muted">never</span>}
                  </td>
                  <td>
                    <span class={`pill ${k.state}`}>{k.state}</span>
                  </td>
                  <td>
                    {revoke && k.state === "active" && (
                      <form
                        method="post"
                        action={`${base}/${k.id}/revoke`}
                        class="inline"
                        hx-confirm={`Revoke the key “${
                          k.name ?? k.prefix
                        }”? Requests with it fail within 30 s.`}
                      >
                        <button type="submit" class="danger">Revoke</button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        {keys.length === 0 && <p class="muted">No keys yet.</p>}
      </div>
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

export const keysPage: OrgPage = {
  path: "keys",
  title: "API keys",
  visible: () => true,
  register(router, deps) {
    router.get("/keys", (c) => render(c, deps));
    registerKeySettingsPage(router, deps);
    router.post("/keys", async (c) => {
      const form = await formFields(c);
      try {
        const created = await createKey(deps, c.var.access, c.var.viewer, {
          name: form.name ?? "",
          rpm: optionalInt(form.rpm),
          expires_at: form.expires_at || null,
        });
        c.header("cache-control", "no-store");
        return await render(c, deps, { created });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
    router.post("/keys/:key/revoke", async (c) => {
      try {
        await revokeKey(deps, c.var.access, c.var.viewer, c.req.param("key"));
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
      return c.redirect(`/orgs/${c.var.access.org.id}/keys`, 303);
    });
  },
};
