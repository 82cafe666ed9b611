/**
 * Account security (`/account`), for every signed-in account: change the password, and turn
 * two-factor sign-in on (a QR code or the secret, confirmed by a code; recovery codes shown
 * once), renew the recovery codes, or turn it off. An organization that requires two-factor
 * sign-in sends its members here (`?required=<org>`) until they have it.
 */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { formError, formFields } from "./form.ts";
import { Notice } from "./regions.tsx";
import { clientAddress } from "../middleware.ts";
import { renewSession, startSession } from "../sessions.ts";
import { changePassword } from "../areas/password_change.ts";
import {
  confirmEnrolment,
  disableTwoFactor,
  type Enrolment,
  pendingEnrolment,
  renewRecoveryCodes,
  startEnrolment,
  twoFactorStatus,
} from "../areas/two_factor.ts";

interface Extra {
  error?: string;
  status?: number;
  notice?: string;
  enrolment?: Enrolment;
  recoveryCodes?: string[];
}

/** A 6-digit code from the authenticator app. */
function CodeField() {
  return (
    <label>
      Code from the app<input
        name="code"
        autocomplete="one-time-code"
        inputmode="numeric"
        maxlength={8}
        required
      />
    </label>
  );
}

function RecoveryCodes(props: { codes: string[]; next: string | undefined }) {
  return (
    <div class="notice" id="recovery-panel" hx-history="false">
      <p>
        <strong>Your recovery codes.</strong>{" "}
        Keep them somewhere safe (a password manager, a printout): each one signs you in once
        instead of a code from the app. They are shown only now.
      </p>
      <pre id="recovery-codes">{props.codes.join("\n")}</pre>
      <button type="button" data-copy="#recovery-codes">Copy</button>
      {props.next && (
        <p>
          <a href={props.next}>Continue to the organization</a>
        </p>
      )}
    </div>
  );
}

function EnrolmentPanel(props: { enrolment: Enrolment; required: string }) {
  const e = props.enrolment;
  return (
    <div class="panel" id="enrolment" hx-history="false">
      <h2>Set up two-factor sign-in</h2>
      <p>
        Scan the code with an authenticator app (FreeOTP, Aegis, Google Authenticator, 1Password,
        …), or type the secret into it. Then enter the 6-digit code it shows.
      </p>
      <img
        src={e.qr_code}
        alt="QR code of the otpauth:// link that enrols this account in an authenticator app"
        width={200}
        height={200}
        id="totp-qr"
      />
      <p>
        Secret: <code id="totp-secret">{e.secret}</code>
      </p>
      <p class="muted">
        <a href={e.otpauth_uri} id="totp-uri">Open in an authenticator app on this device</a>
      </p>
      <form method="post" action="/account/2fa/confirm" class="row">
        <input type="hidden" name="required" value={props.required} />
        <CodeField />
        <button type="submit">Turn on</button>
      </form>
    </div>
  );
}

async function render(c: Context<DashEnv>, deps: DashboardDeps, extra: Extra = {}) {
  const viewer = c.var.viewer;
  const status = await twoFactorStatus(deps, viewer.user.id);
  const frame = await frameFor(deps, viewer, undefined, "Account security", "account");
  const requiredId = c.req.query("required") ?? (await formRequired(c)) ?? "";
  const member = viewer.memberships.some((m) => m.org === requiredId) || viewer.user.operator;
  const requiredOrg = requiredId && member ? await deps.store.getOrg(requiredId) : undefined;
  const next = requiredOrg ? `/orgs/${requiredOrg.id}/overview` : undefined;
  const hasPassword = viewer.user.password_hash !== null;
  c.header("cache-control", "no-store");
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.notice && <Notice>{extra.notice}</Notice>}
      {requiredOrg && !status.enabled && (
        <div class="banner" role="alert" id="required-2fa">
          {requiredOrg.name}{" "}
          requires two-factor sign-in. Turn it on below to reach the organization.
        </div>
      )}
      {extra.recoveryCodes && <RecoveryCodes codes={extra.recoveryCodes} next={next} />}
      {extra.enrolment && <EnrolmentPanel enrolment={extra.enrolment} required={requiredId} />}
      <div class="grid2">
        <div class="panel">
          <h2>Two-factor sign-in</h2>
          {status.enabled
            ? (
              <>
                <p id="two-factor-state">
                  <span class="pill ok">on</span> since {status.enabled_at!.slice(0, 10)};{" "}
                  {status.recovery_codes_left} recovery codes left.
                </p>
                <form method="post" action="/account/2fa/recovery-codes" class="row">
                  <CodeField />
                  <button type="submit" class="secondary">New recovery codes</button>
                </form>
                <h2>Turn it off</h2>
                <form method="post" action="/account/2fa/disable" class="row">
                  <label>
                    Password<input
                      name="password"
                      type="password"
                      autocomplete="current-password"
                      required
                    />
                  </label>
                  <label>
                    Code or recovery code<input
                      name="code"
                      autocomplete="one-time-code"
                      maxlength={40}
                      required
                    />
                  </label>
                  <button type="submit" class="danger">Turn off</button>
                </form>
              </>
            )
            : (
              <>
                <p id="two-factor-state">
                  <span class="pill">off</span>{" "}
                  A sign-in asks for the password only. With two-factor sign-in it also asks for a
                  code from an app on your phone.
                </p>
                {!extra.enrolment && (
                  <form method="post" action="/account/2fa/setup">
                    <input type="hidden" name="required" value={requiredId} />
                    <button type="submit">Set up two-factor sign-in</button>
                  </form>
                )}
              </>
            )}
        </div>
        <div class="panel">
          <h2>Password</h2>
          {hasPassword
            ? (
              <form method="post" action="/account/password">
                <label>
                  Current password<input
                    name="current_password"
                    type="password"
                    autocomplete="current-password"
                    required
                  />
                </label>
                <label>
                  New password (at least 12 characters)<input
                    name="new_password"
                    type="password"
                    autocomplete="new-password"
                    minlength={12}
                    required
                  />
                </label>
                <p class="muted">Changing it signs you out everywhere else.</p>
                <button type="submit">Change password</button>
              </form>
            )
            : (
              <p class="muted">
                This account has no password: it signs in through single sign-on.
              </p>
            )}
        </div>
      </div>
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

/** The organization that sent the viewer here, carried through the enrolment forms. */
async function formRequired(c: Context<DashEnv>): Promise<string | undefined> {
  if (c.req.method !== "POST") return undefined;
  return (await formFields(c)).required || undefined;
}

async function act(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  run: (form: Record<string, string>) => Promise<Extra>,
) {
  const form = await formFields(c);
  try {
    return await render(c, deps, await run(form));
  } catch (error) {
    const e = formError(error);
    const enrolment = await pendingEnrolment(deps, c.var.viewer);
    return await render(c, deps, {
      error: e.message,
      status: e.status,
      ...(enrolment && form.code !== undefined && c.req.path.endsWith("/confirm")
        ? { enrolment }
        : {}),
    });
  }
}

export function registerAccountPages(app: Hono<DashEnv>, deps: DashboardDeps): void {
  app.get("/account", (c) => render(c, deps));
  app.post("/account/password", (c) =>
    act(c, deps, async (form) => {
      const user = await changePassword(deps, c.var.viewer, {
        current_password: form.current_password ?? "",
        new_password: form.new_password ?? "",
        address: clientAddress(c, deps),
      });
      // Every session ended with the change; this browser goes on in a new one.
      await startSession(deps, c, user.id, c.var.viewer.ssoProvider ?? undefined);
      c.set("viewer", { ...c.var.viewer, user });
      return { notice: "Password changed. Your other sessions are signed out." };
    }));
  app.post(
    "/account/2fa/setup",
    (c) => act(c, deps, async () => ({ enrolment: await startEnrolment(deps, c.var.viewer) })),
  );
  app.post("/account/2fa/confirm", (c) =>
    act(c, deps, async (form) => {
      const { recovery_codes } = await confirmEnrolment(deps, c.var.viewer, form.code ?? "");
      // This browser proved a code: its new session counts as two-factor (older ones do not).
      await renewSession(deps, c, c.var.viewer);
      return { recoveryCodes: recovery_codes, notice: "Two-factor sign-in is on." };
    }));
  app.post("/account/2fa/recovery-codes", (c) =>
    act(c, deps, async (form) => {
      const { recovery_codes } = await renewRecoveryCodes(deps, c.var.viewer, form.code ?? "");
      return {
        recoveryCodes: recovery_codes,
        notice: "New recovery codes; the old ones stopped working.",
      };
    }));
  app.post("/account/2fa/disable", (c) =>
    act(c, deps, async (form) => {
      await disableTwoFactor(deps, c.var.viewer, {
        password: form.password ?? "",
        code: form.code ?? "",
        address: clientAddress(c, deps),
      });
      return { notice: "Two-factor sign-in is off." };
    }));
}
