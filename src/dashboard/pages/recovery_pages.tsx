/**
 * The pages without a session that get an account back in: the second step of a sign-in (a
 * code from the authenticator app, or a recovery code) and "forgot your password" (a reset link
 * by e-mail). The link itself opens the set-password page (`public_pages.tsx`).
 */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote } from "./layout.tsx";
import { Page, safeNext } from "./public_frame.tsx";
import { startSession } from "../sessions.ts";
import { clientAddress } from "../middleware.ts";
import { formError, formFields } from "./form.ts";
import { completeSecondStep } from "../areas/second_step.ts";
import { MAILED_LINK_TTL_MS, requestPasswordReset } from "../areas/password_reset.ts";

/** The second step, with the challenge from the password step in a hidden field. */
export function SecondStepForm(props: { challenge: string; error?: string | undefined }) {
  return (
    <Page title="Two-factor sign-in">
      <ErrorNote message={props.error} />
      <form method="post" action="/login/2fa">
        <input type="hidden" name="challenge" value={props.challenge} />
        <label>
          Code from your authenticator app<input
            name="code"
            autocomplete="one-time-code"
            inputmode="text"
            maxlength={40}
            autofocus
            required
          />
        </label>
        <p class="muted">Lost the phone? Type one of your recovery codes instead.</p>
        <button type="submit">Verify</button>
      </form>
      <p>
        <a href="/login">Start again</a>
      </p>
    </Page>
  );
}

function ForgotForm(props: { error?: string; email?: string }) {
  return (
    <Page title="Reset your password">
      <ErrorNote message={props.error} />
      <p>We mail a link to choose a new password to the account's address.</p>
      <form method="post" action="/forgot-password">
        <label>
          E-mail<input
            name="email"
            type="email"
            autocomplete="username"
            required
            value={props.email ?? ""}
          />
        </label>
        <button type="submit">Send the link</button>
      </form>
      <p>
        <a href="/login">Back to sign in</a>
      </p>
    </Page>
  );
}

function NoMail() {
  return (
    <Page title="Reset your password">
      <p>
        This Sovra sends no e-mail. Ask its operator for a reset link (the operator runs{" "}
        <code>admin user reset --email …</code>).
      </p>
      <p>
        <a href="/login">Back to sign in</a>
      </p>
    </Page>
  );
}

async function secondStep(c: Context<DashEnv>, deps: DashboardDeps) {
  const form = await formFields(c);
  const challenge = form.challenge ?? "";
  try {
    const done = await completeSecondStep(deps, {
      challenge,
      code: form.code ?? "",
      address: clientAddress(c, deps),
    });
    await startSession(deps, c, done.user.id);
    return c.redirect(safeNext(done.next), 303);
  } catch (error) {
    const e = formError(error);
    // A challenge that is gone sends the person back to the password.
    if (e.code === "two_factor_expired") return c.redirect("/login", 303);
    return c.html(<SecondStepForm challenge={challenge} error={e.message} />, e.status as 401);
  }
}

export function registerRecoveryPages(app: Hono<DashEnv>, deps: DashboardDeps): void {
  app.post("/login/2fa", (c) => secondStep(c, deps));
  app.get("/forgot-password", (c) => c.html(deps.mailer ? <ForgotForm /> : <NoMail />));
  app.post("/forgot-password", async (c) => {
    if (!deps.mailer) return c.html(<NoMail />, 503);
    const form = await formFields(c);
    try {
      await requestPasswordReset(deps, {
        email: form.email ?? "",
        address: clientAddress(c, deps),
      });
    } catch (error) {
      const e = formError(error);
      return c.html(<ForgotForm error={e.message} email={form.email ?? ""} />, e.status as 400);
    }
    const minutes = MAILED_LINK_TTL_MS / 60_000;
    return c.html(
      <Page title="Check your mailbox">
        <p id="reset-sent">
          If an account has this e-mail, a link to choose a new password is on its way. It works
          once, within {minutes} minutes.
        </p>
        <p>
          <a href="/login">Back to sign in</a>
        </p>
      </Page>,
    );
  });
}
