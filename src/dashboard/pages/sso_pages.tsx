/**
 * Single sign-on's routes outside the organization pages: the redirect to the provider, its
 * callback (sign in, or show a test sign-in's claims), linking to an existing password account,
 * and the signed-out page that offers the provider's own sign-out. Every refusal is a page
 * saying what happened and what to do; a refused sign-in creates nothing.
 */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv, Viewer } from "../deps.ts";
import type { SsoProviderRecord } from "../../state/sso_records.ts";
import { GatewayError } from "../../errors.ts";
import { errorMessage } from "../../log.ts";
import { ErrorNote } from "./layout.tsx";
import { Page, safeNext } from "./public_frame.tsx";
import { formFields } from "./form.ts";
import { loadViewer, startSession } from "../sessions.ts";
import { clientAddress } from "../middleware.ts";
import { startAuthorization, takeAuthorization } from "../sso/flows.ts";
import { completeSignIn, ssoRefused } from "../sso/oidc.ts";
import { providerSignOut } from "../sso/sign_out.ts";
import { completeLink, describeTest, signInWithClaims } from "../sso/sign_in.ts";
import { resolveOrgAccess } from "../access.ts";
import { can } from "../access.ts";
import { forbidden, invalidCredentials, notFound } from "../errors.ts";
import { hashToken } from "../secret_tokens.ts";
import { burnPasswordCheck, verifyPassword } from "../passwords.ts";
import { reserveAttempt } from "../login_throttle.ts";
import { audit } from "../audit.ts";

/** The providers shown on the sign-in page: those at least one organization signs in with. */
export async function signInProviders(deps: DashboardDeps) {
  const out = [];
  for (const p of await deps.sso.listProviders()) {
    if ((await deps.sso.listBindingsOfProvider(p.id)).length > 0) {
      out.push({ id: p.id, name: p.name });
    }
  }
  return out;
}

function Refusal(props: { status: number; message: string }) {
  return (
    <Page title={props.status >= 500 ? "Sign-in failed" : "Sign-in refused"}>
      <div class="error" role="alert" id="sso-refusal">{props.message}</div>
      <p>
        <a href="/login">Back to sign in</a>
      </p>
    </Page>
  );
}

function refusalPage(deps: DashboardDeps, c: Context, error: unknown) {
  if (!(error instanceof GatewayError)) {
    deps.log.error("sso error", { path: c.req.path, reason: errorMessage(error) });
    error = new GatewayError(500, "internal_error", "Something went wrong; try again.");
  }
  const e = error as GatewayError;
  return c.html(<Refusal status={e.status} message={e.message} />, e.status as 400);
}

/**
 * After a sign-in: a page that moves on by itself. The provider's redirect back is a
 * cross-site navigation, in which the browser holds back the SameSite=Strict session cookie
 * just set; the next navigation, started from this page, is same-site and carries it.
 */
function Continue(props: { next: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content={`0;url=${props.next}`} />
        <title>Signed in · Sovra</title>
      </head>
      <body>
        <p>
          Signed in. <a href={props.next}>Continue to the dashboard</a>.
        </p>
      </body>
    </html>
  );
}

function LinkForm(props: { token: string; email: string; provider: string; error?: string }) {
  return (
    <Page title="Link your sign-in">
      <ErrorNote message={props.error} />
      <p>
        A Sovra account for <strong>{props.email}</strong>{" "}
        exists already. Enter that account's password once to link your {props.provider}{" "}
        sign-in to it; from then on {props.provider} alone signs you in.
      </p>
      <form method="post" action="/sso/link">
        <input type="hidden" name="token" value={props.token} />
        <label>
          Password of {props.email}
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Link and sign in</button>
      </form>
      <p>
        <a href="/login">Cancel</a>
      </p>
    </Page>
  );
}

function TestResult(props: { result: Awaited<ReturnType<typeof describeTest>>; back: string }) {
  const { result } = props;
  const s = result.summary;
  return (
    <Page title="Test sign-in: the claims received" wide>
      <p>
        Nothing was created or changed. These are the ID token's claims as Sovra verified them (the
        tokens themselves are never shown or kept).
      </p>
      <table id="sso-summary">
        <tbody>
          <tr>
            <th>E-mail</th>
            <td>{s.email ?? "(none)"}</td>
          </tr>
          <tr>
            <th>E-mail verified</th>
            <td>{s.email_verified ? "yes" : "no: domain rules will not match"}</td>
          </tr>
          <tr>
            <th>Groups</th>
            <td>{s.groups.length > 0 ? s.groups.join(", ") : "(none)"}</td>
          </tr>
          <tr>
            <th>Role in this organization</th>
            <td id="sso-test-role">
              {!result.org
                ? "(no organization)"
                : !result.bound
                ? "this provider is not bound to the organization yet"
                : result.match
                ? `${result.match.role} (${result.match.because.join("; ")})`
                : "none: no rule matches, the sign-in would be refused"}
            </td>
          </tr>
          <tr>
            <th>Linked Sovra account</th>
            <td>{result.linked_user ?? "none yet"}</td>
          </tr>
        </tbody>
      </table>
      <h2>All claims</h2>
      <pre id="sso-claims">{JSON.stringify(result.claims, null, 2)}</pre>
      <p>
        <a href={props.back}>Back</a>
      </p>
    </Page>
  );
}

/** After a sign-out of an SSO session: the provider's sign-out, if it has one. */
export async function signOutPage(
  deps: DashboardDeps,
  c: Context,
  viewer: Viewer | undefined,
): Promise<Response | undefined> {
  const signOut = await providerSignOut(deps, viewer);
  if (!signOut) return undefined;
  const { provider, url } = signOut;
  return c.html(
    <Page title="Signed out">
      <p>You are signed out of Sovra.</p>
      {url
        ? (
          <p>
            You may still be signed in at {provider.name}.{" "}
            <a id="sso-end-session" class="button secondary" href={url} hx-boost="false">
              Sign out of {provider.name} too
            </a>
          </p>
        )
        : <p>You may still be signed in at {provider.name}; sign out there as well.</p>}
      <p>
        <a href="/login">Sign in again</a>
      </p>
    </Page>,
  );
}

async function providerOr404(deps: DashboardDeps, id: string): Promise<SsoProviderRecord> {
  const provider = id ? await deps.sso.getProvider(id) : undefined;
  if (!provider) throw notFound("Identity provider");
  return provider;
}

/** A test sign-in may be started by an operator, or by an owner for their organization. */
async function requireTester(deps: DashboardDeps, viewer: Viewer, org: string | null) {
  if (org) {
    const access = await resolveOrgAccess(deps, viewer, org);
    if (!can(access, "manage_sso") && !viewer.user.operator) throw forbidden("a test sign-in");
  } else if (!viewer.user.operator) throw forbidden("a test sign-in");
}

export function registerSsoPages(app: Hono<DashEnv>, deps: DashboardDeps): void {
  app.get("/sso/start", async (c) => {
    try {
      const provider = await providerOr404(deps, c.req.query("provider") ?? "");
      const url = await startAuthorization(deps, c, provider, {
        purpose: "sign_in",
        next: safeNext(c.req.query("next")),
        user: null,
        org: null,
      });
      return c.redirect(url.href, 303);
    } catch (error) {
      return refusalPage(deps, c, error);
    }
  });

  // A link, not a form: the page's CSP (form-action 'self') would block a form's redirect to
  // the provider. Starting a flow changes nothing until its callback.
  app.get("/sso/test", async (c) => {
    const viewer = await loadViewer(deps, c);
    if (!viewer) return c.redirect("/login", 303);
    try {
      const org = c.req.query("org") || null;
      await requireTester(deps, viewer, org);
      const provider = await providerOr404(deps, c.req.query("provider") ?? "");
      const url = await startAuthorization(deps, c, provider, {
        purpose: "test",
        next: org ? `/orgs/${org}/sso` : "/operator/sso",
        user: viewer.user.id,
        org,
      });
      return c.redirect(url.href, 303);
    } catch (error) {
      return refusalPage(deps, c, error);
    }
  });

  app.get("/sso/callback", async (c) => {
    try {
      const { flow, checks } = await takeAuthorization(deps, c);
      const provider = await deps.sso.getProvider(flow.provider);
      if (!provider) throw ssoRefused("This identity provider was removed meanwhile.");
      const query = new URL(c.req.url).searchParams;
      const claims = await completeSignIn(provider, deps.config.secret, query, checks);
      if (flow.purpose === "test") {
        const viewer = await loadViewer(deps, c);
        if (!viewer || viewer.user.id !== flow.user) {
          throw ssoRefused("This test sign-in was started by another session; start it again.");
        }
        const result = await describeTest(deps, provider, claims, flow.org);
        return c.html(<TestResult result={result} back={flow.next} />);
      }
      const outcome = await signInWithClaims(deps, provider, claims, flow.next);
      if (outcome.kind === "link") {
        return c.html(
          <LinkForm token={outcome.token} email={outcome.email} provider={provider.name} />,
        );
      }
      await startSession(deps, c, outcome.user.id, provider.id);
      return c.html(<Continue next={flow.next} />);
    } catch (error) {
      return refusalPage(deps, c, error);
    }
  });

  app.post("/sso/link", async (c) => {
    const form = await formFields(c);
    const token = form.token ?? "";
    try {
      const hash = hashToken(token);
      const flow = token && token.length <= 100 ? await deps.sso.getFlow(hash) : undefined;
      if (!flow || flow.kind !== "link" || Date.parse(flow.expires) <= deps.now()) {
        throw ssoRefused("This link request was used or has expired; sign in again.");
      }
      const provider = await providerOr404(deps, flow.provider);
      const user = await deps.accounts.getUser(flow.user);
      const subjects = { email: user?.email ?? "", address: clientAddress(c, deps) };
      // Reserved before the hash, as a sign-in's (login_throttle.ts).
      const attempt = await reserveAttempt(deps.accounts, subjects, deps.now());
      const ok = user?.password_hash
        ? await verifyPassword(form.password ?? "", user.password_hash)
        : await burnPasswordCheck(form.password ?? "", deps.config.passwordScryptLogN);
      if (!user || !ok) {
        await attempt.failed();
        await audit(deps, null, subjects.email, "login.failed", null, {
          address: subjects.address,
          via: "sso_link",
        });
        const e = invalidCredentials();
        return c.html(
          <LinkForm
            token={token}
            email={user?.email ?? ""}
            provider={provider.name}
            error="The password is wrong."
          />,
          e.status as 401,
        );
      }
      await attempt.succeeded();
      if (!await deps.sso.takeFlow(hash)) {
        throw ssoRefused("This link request was used meanwhile; sign in again.");
      }
      const signedIn = await completeLink(deps, provider, flow);
      await startSession(deps, c, signedIn.id, provider.id);
      return c.redirect(flow.next, 303);
    } catch (error) {
      return refusalPage(deps, c, error);
    }
  });
}
