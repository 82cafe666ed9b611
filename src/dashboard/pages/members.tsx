/**
 * Members (owners): invite (an invitation link to pass on), pending invitations (revoke), change
 * role, remove; require two-factor sign-in.
 */
import type { Context } from "hono";
import type { OrgPage } from "./nav.ts";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { changeMember, inviteMember, listMembers, parseRole } from "../areas/members.ts";
import { orgInvitations, revokeInvitation, type SentInvitation } from "../areas/invitations.ts";
import { can } from "../access.ts";
import { ROLES } from "../../state/account_records.ts";
import { updateSettings } from "../areas/credits.ts";
import { formError, formFields } from "./form.ts";
import { ActionsHeader, ScrollRegion } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; invited?: SentInvitation } = {},
) {
  const access = c.var.access;
  const members = await listMembers(deps, access);
  const invitations = await orgInvitations(deps, access);
  const frame = await frameFor(deps, c.var.viewer, access, "Members", "members");
  const base = `/orgs/${access.org.id}/members`;
  const settings = await deps.control.getOrgSettings(access.org.id);
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.invited && (
        <div class="notice" role="status" hx-history="false">
          <p>
            Invitation recorded for {extra.invited.email} as{" "}
            {extra.invited.role}. Pass this link on (valid until{" "}
            {extra.invited.expires.slice(0, 10)}; Sovra mails no invitations). Someone who already
            has an account signs in and accepts it; someone new creates their account with it.
          </p>
          <p>
            <code class="key" id="invite-link">{extra.invited.invite_url}</code>{" "}
            <button type="button" data-copy="#invite-link">Copy</button>
          </p>
        </div>
      )}
      <div class="panel">
        <h2>Invite a member</h2>
        <form method="post" action={base} class="row">
          <label>
            E-mail<input name="email" type="email" required />
          </label>
          <label>
            Role<select name="role">
              {ROLES.map((r) => <option value={r} selected={r === "viewer"}>{r}</option>)}
            </select>
          </label>
          <button type="submit">Invite</button>
        </form>
      </div>
      <div class="panel">
        <ScrollRegion label="Members">
          <table id="members">
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
                <th>Since</th>
                <th>Password</th>
                <th>Two-factor</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr>
                  <td>{m.email}</td>
                  <td>
                    <form method="post" action={`${base}/${m.user}/role`} class="inline">
                      <select name="role" aria-label={`Role of ${m.email}`}>
                        {ROLES.map((r) => <option value={r} selected={r === m.role}>{r}</option>)}
                      </select>{" "}
                      <button
                        type="submit"
                        class="secondary"
                        aria-label={`Change the role of ${m.email}`}
                      >
                        Change
                      </button>
                    </form>
                  </td>
                  <td>{m.since.slice(0, 10)}</td>
                  <td>{m.password_set ? "set" : <span class="muted">link not used yet</span>}</td>
                  <td>{m.two_factor ? "on" : <span class="muted">off</span>}</td>
                  <td>
                    <form
                      method="post"
                      action={`${base}/${m.user}/remove`}
                      class="inline"
                      hx-confirm={`Remove ${m.email} from ${access.org.name}?`}
                    >
                      <button type="submit" class="danger" aria-label={`Remove ${m.email}`}>
                        Remove
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>
      <div class="panel">
        <h2>Two-factor sign-in</h2>
        <form method="post" action={`${base}/require-2fa`} class="row" id="require-2fa-form">
          <label class="check">
            <input
              type="checkbox"
              name="require_2fa"
              value="true"
              checked={settings.require_2fa}
            />{" "}
            Require two-factor sign-in: members without it are sent to set it up before they reach
            {" "}
            {access.org.name} (single sign-on sessions count as two-factor).
          </label>
          <button type="submit" class="secondary">Save</button>
        </form>
      </div>
      {invitations.length > 0 && (
        <div class="panel">
          <h2>Pending invitations</h2>
          <ScrollRegion label="Pending invitations">
            <table id="invitations">
              <thead>
                <tr>
                  <th>E-mail</th>
                  <th>Role</th>
                  <th>Invited by</th>
                  <th>Until</th>
                  <ActionsHeader />
                </tr>
              </thead>
              <tbody>
                {invitations.map((inv) => (
                  <tr>
                    <td>{inv.email}</td>
                    <td>{inv.role}</td>
                    <td>{inv.invited_by}</td>
                    <td>{inv.expires.slice(0, 10)}</td>
                    <td>
                      <form
                        method="post"
                        action={`${base}/invitations/${inv.id}/revoke`}
                        class="inline"
                        hx-confirm={`Revoke the invitation of ${inv.email}?`}
                      >
                        <button
                          type="submit"
                          class="danger"
                          aria-label={`Revoke the invitation of ${inv.email}`}
                        >
                          Revoke
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        </div>
      )}
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

export const membersPage: OrgPage = {
  path: "members",
  title: "Members",
  visible: (access) => can(access, "manage_members"),
  register(router, deps) {
    router.get("/members", (c) => render(c, deps));
    router.post("/members", async (c) => {
      const form = await formFields(c);
      try {
        const result = await inviteMember(deps, c.var.access, c.var.viewer, {
          email: form.email ?? "",
          role: parseRole(form.role),
        });
        return await render(c, deps, { invited: result });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
    router.post("/members/require-2fa", async (c) => {
      const form = await formFields(c);
      try {
        await updateSettings(deps, c.var.access, c.var.viewer, {
          require_2fa: form.require_2fa === "true",
        });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
      return c.redirect(`/orgs/${c.var.access.org.id}/members`, 303);
    });
    router.post("/members/invitations/:id/revoke", async (c) => {
      await revokeInvitation(deps, c.var.access, c.var.viewer, c.req.param("id"));
      return c.redirect(`/orgs/${c.var.access.org.id}/members`, 303);
    });
    for (const action of ["role", "remove"] as const) {
      router.post(`/members/:user/${action}`, async (c) => {
        const form = await formFields(c);
        try {
          const role = action === "remove" ? null : parseRole(form.role);
          await changeMember(deps, c.var.access, c.var.viewer, c.req.param("user"), role);
        } catch (error) {
          const e = formError(error);
          return await render(c, deps, { error: e.message, status: e.status });
        }
        return c.redirect(`/orgs/${c.var.access.org.id}/members`, 303);
      });
    }
  },
};
