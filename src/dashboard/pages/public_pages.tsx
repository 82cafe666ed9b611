/**
 * Sign in, sign out, set a password (from a one-time link: a new account's or a reset): the
 * pages without a session. The second step and the reset request are `recovery_pages.tsx`.
 */
import type { Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote } from "./layout.tsx";
import { setPasswordWithToken, signIn } from "../areas/accounts.ts";
import { endSession, loadViewer, startSession } from "../sessions.ts";
import { clientAddress } from "../middleware.ts";
import { formError, formFields } from "./form.ts";
import { Page, safeNext, SsoButtons } from "./public_frame.tsx";
import { signInProviders, signOutPage } from "./sso_pages.tsx";
import { SecondStepForm } from "./recovery_pages.tsx";
import { secondStepFor } from "../areas/second_step.ts";

function LoginForm(
  props: {
    error?: string;
    next: string;
    email?: string;
    providers: Array<{ id: string; name: string }>;
  },
) {
  return (
    <Page title="Sign in to the dashboard">
      <ErrorNote message={props.error} />
      <SsoButtons providers={props.providers} next={props.next} />
      <form method="post" action="/login">
        <input type="hidden" name="next" value={props.next} />
        <label>
          E-mail<input
            name="email"
            type="email"
            autocomplete="username"
            required
            value={props.email ?? ""}
          />
        </label>
        <label>
          Password<input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
      <p>
        <a href="/forgot-password">Forgot your password?</a>
      </p>
    </Page>
  );
}

function SetPasswordForm(props: { token: string; error?: string }) {
  return (
    <Page title="Choose your password">
      <ErrorNote message={props.error} />
      <form method="post" action="/set-password">
        <input type="hidden" name="token" value={props.token} />
        <label>
          New password (at least 12 characters)<input
            name="password"
            type="password"
            autocomplete="new-password"
            minlength={12}
            required
          />
        </label>
        <button type="submit">Set password</button>
      </form>
    </Page>
  );
}

export function registerPublicPages(app: Hono<DashEnv>, deps: DashboardDeps): void {
  app.get("/login", async (c) =>
    c.html(
      <LoginForm next={safeNext(c.req.query("next"))} providers={await signInProviders(deps)} />,
    ));
  app.post("/login", async (c) => {
    const form = await formFields(c);
    const next = safeNext(form.next);
    try {
      const user = await signIn(deps, {
        email: form.email ?? "",
        password: form.password ?? "",
        address: clientAddress(c, deps),
      });
      // With two-factor sign-in the password alone makes no session: the second step next.
      const challenge = await secondStepFor(deps, user, next);
      if (challenge) return c.html(<SecondStepForm challenge={challenge} />);
      await startSession(deps, c, user.id);
      return c.redirect(next, 303);
    } catch (error) {
      const e = formError(error);
      return c.html(
        <LoginForm
          error={e.message}
          next={next}
          email={form.email ?? ""}
          providers={await signInProviders(deps)}
        />,
        e.status as 401,
      );
    }
  });
  app.post("/logout", async (c) => {
    const viewer = await loadViewer(deps, c);
    await endSession(deps, c, viewer);
    return (await signOutPage(deps, c, viewer)) ?? c.redirect("/login", 303);
  });
  app.get("/set-password", (c) => c.html(<SetPasswordForm token={c.req.query("token") ?? ""} />));
  app.post("/set-password", async (c) => {
    const form = await formFields(c);
    try {
      await setPasswordWithToken(deps, form.token ?? "", form.password ?? "");
    } catch (error) {
      const e = formError(error);
      return c.html(<SetPasswordForm token={form.token ?? ""} error={e.message} />, 400);
    }
    return c.html(
      <Page title="Password set">
        <p>
          Your password is set. <a href="/login">Sign in</a>.
        </p>
      </Page>,
    );
  });
}
