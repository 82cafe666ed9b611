/**
 * Invitations, as the invitee sees them: the link's page (create the invited account, or sign in
 * and accept) and the signed-in account's pending invitations (accept, decline).
 */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv, Viewer } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { Page } from "./public_frame.tsx";
import {
  acceptInvitation,
  createAccountFromInvitation,
  declineInvitation,
  invitationByLink,
  type InvitationView,
  pendingInvitations,
} from "../areas/invitations.ts";
import { loadViewer } from "../sessions.ts";
import { formError, formFields } from "./form.ts";
import { ActionsHeader, ScrollRegion } from "./regions.tsx";

function Answer(props: { inv: InvitationView }) {
  return (
    <>
      <form method="post" action={`/invitations/${props.inv.id}/accept`} class="inline">
        <button type="submit" aria-label={`Accept the invitation to ${props.inv.org_name}`}>
          Accept
        </button>
      </form>{" "}
      <form method="post" action={`/invitations/${props.inv.id}/decline`} class="inline">
        <button
          type="submit"
          class="secondary"
          aria-label={`Decline the invitation to ${props.inv.org_name}`}
        >
          Decline
        </button>
      </form>
    </>
  );
}

/** The link's page: what it offers depends on who holds it, never on whether an account exists. */
function LinkPage(
  props: { token: string; inv?: InvitationView; viewer?: Viewer; error?: string },
) {
  const { inv, viewer } = props;
  if (!inv) {
    return (
      <Page title="Invitation">
        <ErrorNote message={props.error} />
      </Page>
    );
  }
  return (
    <Page title={`Join ${inv.org_name}`}>
      <ErrorNote message={props.error} />
      <p>
        {inv.invited_by} invites <strong>{inv.email}</strong> to {inv.org_name} as{" "}
        <strong>{inv.role}</strong> (until {inv.expires.slice(0, 10)}).
      </p>
      {viewer
        ? (viewer.user.email === inv.email ? <Answer inv={inv} /> : (
          <p>
            You are signed in as {viewer.user.email}; this invitation is for another address.
          </p>
        ))
        : (
          <>
            <p>
              Already have a Sovra account for {inv.email}?{" "}
              <a href="/login?next=/invitations">Sign in</a> to accept it.
            </p>
            <p>New to Sovra? Choose a password to create the account and join:</p>
            <form method="post" action="/invite">
              <input type="hidden" name="token" value={props.token} />
              <label>
                Password (at least 12 characters)<input
                  name="password"
                  type="password"
                  autocomplete="new-password"
                  minlength={12}
                  required
                />
              </label>
              <button type="submit">Create account and join</button>
            </form>
          </>
        )}
    </Page>
  );
}

async function renderList(c: Context<DashEnv>, deps: DashboardDeps, error?: string) {
  const invitations = await pendingInvitations(deps, c.var.viewer);
  const frame = await frameFor(deps, c.var.viewer, undefined, "Invitations", "invitations");
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={error} />
      <div class="panel">
        {invitations.length === 0
          ? <p class="muted">No pending invitations.</p>
          : (
            <ScrollRegion label="Invitations">
              <table id="invitations">
                <thead>
                  <tr>
                    <th>Organization</th>
                    <th>Role</th>
                    <th>Invited by</th>
                    <th>Until</th>
                    <ActionsHeader />
                  </tr>
                </thead>
                <tbody>
                  {invitations.map((inv) => (
                    <tr>
                      <td>{inv.org_name}</td>
                      <td>{inv.role}</td>
                      <td>{inv.invited_by}</td>
                      <td>{inv.expires.slice(0, 10)}</td>
                      <td>
                        <Answer inv={inv} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
      </div>
    </Layout>,
  );
}

/** `/invite` needs no session; `/invitations` is mounted behind the session check. */
export function registerInvitationPages(app: Hono<DashEnv>, deps: DashboardDeps): void {
  app.get("/invite", async (c) => {
    const token = c.req.query("token") ?? "";
    try {
      const inv = await invitationByLink(deps, token);
      const viewer = await loadViewer(deps, c);
      return c.html(<LinkPage token={token} inv={inv} {...(viewer ? { viewer } : {})} />);
    } catch (error) {
      return c.html(<LinkPage token={token} error={formError(error).message} />, 400);
    }
  });
  app.post("/invite", async (c) => {
    const form = await formFields(c);
    const token = form.token ?? "";
    try {
      const made = await createAccountFromInvitation(deps, token, form.password ?? "");
      const org = await deps.store.getOrg(made.org);
      return c.html(
        <Page title="Account created">
          <p>
            Your account {made.user.email} is a {made.role} of {org?.name ?? made.org}.{" "}
            <a href="/login">Sign in</a>.
          </p>
        </Page>,
      );
    } catch (error) {
      const e = formError(error);
      let inv: InvitationView | undefined;
      try {
        inv = await invitationByLink(deps, token);
      } catch { /* the link itself is refused: the page says so */ }
      return c.html(
        <LinkPage token={token} error={e.message} {...(inv ? { inv } : {})} />,
        e.status as 400,
      );
    }
  });
  app.get("/invitations", (c) => renderList(c, deps));
  app.post("/invitations/:id/accept", async (c) => {
    const result = await acceptInvitation(deps, c.var.viewer, c.req.param("id"));
    return c.redirect(`/orgs/${result.org}/overview`, 303);
  });
  app.post("/invitations/:id/decline", async (c) => {
    await declineInvitation(deps, c.var.viewer, c.req.param("id"));
    return c.redirect("/invitations", 303);
  });
}
