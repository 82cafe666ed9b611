/**
 * The JSON API of an account's own security (the pages call the same `areas/`): the second step
 * of a sign-in and the password-reset request (public), and, signed in, the password change and
 * two-factor sign-in under `/api/account`. Also the operator's containment actions under
 * `/api/operator` and an organization's credit corrections.
 */
import type { Hono } from "hono";
import { z } from "zod";
import type { DashboardDeps, DashEnv } from "./deps.ts";
import { publicUser } from "./areas/accounts.ts";
import { renewSession, startSession } from "./sessions.ts";
import { clientAddress } from "./middleware.ts";
import { requestPasswordReset } from "./areas/password_reset.ts";
import { completeSecondStep } from "./areas/second_step.ts";
import { changePassword } from "./areas/password_change.ts";
import {
  confirmEnrolment,
  disableTwoFactor,
  renewRecoveryCodes,
  startEnrolment,
  twoFactorStatus,
} from "./areas/two_factor.ts";
import { correctCredits, restoreOrg, revokeAnyKey, suspendOrg } from "./areas/operator_actions.ts";
import { requirePermission } from "./access.ts";

type Body = <T>(c: { req: { json(): Promise<unknown> } }, schema: z.ZodType<T>) => Promise<T>;

const SecondStep = z.strictObject({
  challenge: z.string().max(100),
  code: z.string().max(40),
});
const ResetRequest = z.strictObject({ email: z.string().max(254) });
const PasswordChange = z.strictObject({
  current_password: z.string().max(200),
  new_password: z.string().max(200),
});
const Code = z.strictObject({ code: z.string().max(40) });
const Disable = z.strictObject({ password: z.string().max(200), code: z.string().max(40) });
const Suspend = z.strictObject({ reason: z.string().max(200).optional() });
const Correction = z.strictObject({
  amount_micro_eur: z.number().int(),
  reason: z.string(),
  corrects: z.string().max(100).nullish(),
});

/** Before the session check: the second step of a sign-in, asking for a reset link. */
export function registerPublicAccountApi(api: Hono<DashEnv>, deps: DashboardDeps, body: Body) {
  api.post("/login/2fa", async (c) => {
    const input = await body(c, SecondStep);
    const { user } = await completeSecondStep(deps, { ...input, address: clientAddress(c, deps) });
    await startSession(deps, c, user.id);
    return c.json({ user: publicUser(user) });
  });
  api.post("/password-reset", async (c) => {
    const input = await body(c, ResetRequest);
    return c.json(
      await requestPasswordReset(deps, { email: input.email, address: clientAddress(c, deps) }),
      202,
    );
  });
}

/** Behind the session check: the account's own settings, the operator's actions. */
export function registerAccountApi(
  api: Hono<DashEnv>,
  org: Hono<DashEnv>,
  deps: DashboardDeps,
  body: Body,
) {
  api.get("/account", async (c) =>
    c.json({
      user: publicUser(c.var.viewer.user),
      two_factor: await twoFactorStatus(deps, c.var.viewer.user.id),
    }));
  api.post("/account/password", async (c) => {
    const input = await body(c, PasswordChange);
    const user = await changePassword(deps, c.var.viewer, {
      ...input,
      address: clientAddress(c, deps),
    });
    // Every session of the account ended with the change; this browser gets a new one.
    await startSession(deps, c, user.id, c.var.viewer.ssoProvider ?? undefined);
    return c.json({ user: publicUser(user), other_sessions_ended: true });
  });
  api.post("/account/2fa/setup", async (c) => c.json(await startEnrolment(deps, c.var.viewer)));
  api.post("/account/2fa/confirm", async (c) => {
    const input = await body(c, Code);
    const done = await confirmEnrolment(deps, c.var.viewer, input.code);
    // This browser proved a code: its new session counts as two-factor (older ones do not).
    await renewSession(deps, c, c.var.viewer);
    return c.json(done);
  });
  api.post("/account/2fa/disable", async (c) => {
    const input = await body(c, Disable);
    return c.json(
      await disableTwoFactor(deps, c.var.viewer, { ...input, address: clientAddress(c, deps) }),
    );
  });
  api.post("/account/2fa/recovery-codes", async (c) => {
    const input = await body(c, Code);
    return c.json(await renewRecoveryCodes(deps, c.var.viewer, input.code));
  });

  api.post("/operator/orgs/:org/suspend", async (c) => {
    const input = await body(c, Suspend);
    return c.json(await suspendOrg(deps, c.var.viewer, c.req.param("org"), input.reason));
  });
  api.post(
    "/operator/orgs/:org/restore",
    async (c) => c.json(await restoreOrg(deps, c.var.viewer, c.req.param("org"))),
  );
  api.post("/operator/keys/:key/revoke", async (c) => {
    const k = await revokeAnyKey(deps, c.var.viewer, c.req.param("key"));
    return c.json({
      id: k.id,
      org: k.org,
      name: k.name,
      state: "revoked",
      revoked_at: k.revoked_at,
    });
  });
  org.post("/credits/corrections", async (c) => {
    requirePermission(c.var.access, "operate", "correcting credits");
    const input = await body(c, Correction);
    return c.json(
      await correctCredits(deps, c.var.viewer, { ...input, org: c.var.access.org.id }),
      201,
    );
  });
}
