/**
 * createDashboardApp(deps): the control plane's Hono app — secure headers and CSRF guard on
 * everything, static assets, the JSON API under /api/, the public pages (sign in, set
 * password, an invitation link, the second step of a sign-in and a reset request, single
 * sign-on's redirect and callback), then the pages behind a session: the account's own security,
 * the invitee's invitations, the operator's and each organization's (from `pages/nav.ts`).
 * Served on its own port, beside or apart from the request API.
 */
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { DashboardDeps, DashEnv } from "./deps.ts";
import { GatewayError, internalError } from "../errors.ts";
import { errorMessage } from "../log.ts";
import { AccountError } from "../accounts/account_error.ts";
import { requestGuard } from "./request_guard.ts";
import { bodyDeadline } from "./body_deadline.ts";
import { registerStaticAssets } from "./static_assets.ts";
import { createApi } from "./api.ts";
import { registerPublicPages } from "./pages/public_pages.tsx";
import { registerRecoveryPages } from "./pages/recovery_pages.tsx";
import { registerAccountPages } from "./pages/account.tsx";
import { registerOperatorPages } from "./pages/operator.tsx";
import { registerInvitationPages } from "./pages/invitations.tsx";
import { pendingInvitations } from "./areas/invitations.ts";
import { registerSsoPages } from "./pages/sso_pages.tsx";
import { registerSsoOperatorPages } from "./pages/sso_operator.tsx";
import { isBuilt, ORG_PAGES } from "./pages/nav.ts";
import { requireViewer, withOrgAccess } from "./middleware.ts";
import { ErrorPage } from "./pages/error_page.tsx";

export function createDashboardApp(deps: DashboardDeps): Hono<DashEnv> {
  const app = new Hono<DashEnv>();

  app.onError((raw, c) => {
    const error = raw instanceof AccountError
      ? new GatewayError(
        raw.kind === "not_found" ? 404 : 400,
        raw.kind === "not_found" ? "not_found" : "invalid_request",
        raw.message,
        raw.param === undefined ? {} : { param: raw.param },
      )
      : raw;
    const known = error instanceof GatewayError;
    if (!known) {
      deps.log.error("dashboard error", { path: c.req.path, reason: errorMessage(error) });
    }
    const e = known ? error : internalError();
    if (c.req.path.startsWith("/api/")) return e.toResponse({ "cache-control": "no-store" });
    if (e.status === 401) return c.redirect("/login", 303);
    if (e.code === "two_factor_required") {
      const org = /^\/orgs\/([^/]+)/.exec(c.req.path)?.[1] ?? "";
      return c.redirect(`/account?required=${encodeURIComponent(org)}`, 303);
    }
    return c.html(ErrorPage({ status: e.status, message: e.message }), e.status as 400);
  });
  app.notFound((c) => {
    const e = new GatewayError(404, "not_found", `No route for ${c.req.method} ${c.req.path}.`);
    if (c.req.path.startsWith("/api/")) return e.toResponse();
    return c.html(ErrorPage({ status: 404, message: "This page does not exist." }), 404);
  });

  app.use(
    "*",
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      xFrameOptions: "DENY",
    }),
  );
  app.use("*", async (c, next) => {
    await next();
    if (!c.req.path.startsWith("/static/")) c.header("cache-control", "no-store");
  });
  app.use("*", requestGuard(deps.publicUrl));
  app.use("*", bodyDeadline(deps.config.bodyTimeoutMs));
  registerStaticAssets(app as unknown as Hono<never>);
  app.route("/api", createApi(deps));
  registerPublicPages(app, deps);
  registerRecoveryPages(app, deps);
  registerSsoPages(app, deps);

  const signedIn = requireViewer(deps, "page");
  app.use("/", signedIn);
  app.use("/operator", signedIn);
  app.use("/operator/*", signedIn);
  app.use("/orgs/*", signedIn);
  app.use("/invitations", signedIn);
  app.use("/invitations/*", signedIn);
  app.use("/account", signedIn);
  app.use("/account/*", signedIn);
  app.get("/", async (c) => {
    const first = c.var.viewer.memberships[0];
    if (first) return c.redirect(`/orgs/${first.org}/overview`, 303);
    if (c.var.viewer.user.operator) return c.redirect("/operator", 303);
    if ((await pendingInvitations(deps, c.var.viewer)).length > 0) {
      return c.redirect("/invitations", 303);
    }
    return c.html(
      ErrorPage({ status: 200, message: "You are not a member of any organization yet." }),
    );
  });
  registerOperatorPages(app, deps);
  registerInvitationPages(app, deps);
  registerSsoOperatorPages(app, deps);
  registerAccountPages(app, deps);

  const org = new Hono<DashEnv>();
  org.use("*", withOrgAccess(deps));
  org.get("/", (c) => c.redirect(`/orgs/${c.var.access.org.id}/overview`, 303));
  for (const page of ORG_PAGES) if (isBuilt(page)) page.register(org, deps);
  app.route("/orgs/:org", org);
  return app;
}
