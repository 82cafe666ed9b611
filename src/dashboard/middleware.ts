/** Session and organization-access middleware shared by the JSON API and the pages. */
import type { Context, MiddlewareHandler } from "hono";
import type { DashboardDeps, DashEnv } from "./deps.ts";
import { loadViewer } from "./sessions.ts";
import { notAuthenticated } from "./errors.ts";
import { resolveOrgAccess } from "./access.ts";
import { clientAddressOf, trustedProxyList } from "./client_address.ts";

/** The viewer or, without a valid session, 401 (JSON) or a redirect to the login page. */
export function requireViewer(
  deps: DashboardDeps,
  kind: "json" | "page",
): MiddlewareHandler<DashEnv> {
  return async (c, next) => {
    const viewer = await loadViewer(deps, c);
    if (!viewer) {
      if (kind === "json") throw notAuthenticated();
      const next = encodeURIComponent(c.req.path);
      return c.redirect(`/login?next=${next}`, 303);
    }
    c.set("viewer", viewer);
    await next();
  };
}

/** Resolves `:org` for the viewer: the access, or 404 for an organization they may not see. */
export function withOrgAccess(deps: DashboardDeps): MiddlewareHandler<DashEnv> {
  return async (c, next) => {
    c.set("access", await resolveOrgAccess(deps, c.var.viewer, c.req.param("org") ?? ""));
    await next();
  };
}

/**
 * The client's address, for sign-in throttling: the peer (Deno.serve's info), or what a trusted
 * proxy recorded in `X-Forwarded-For` (`client_address.ts`).
 */
export function clientAddress(c: Context, deps: DashboardDeps): string {
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return clientAddressOf(
    info?.remoteAddr?.hostname,
    c.req.header("x-forwarded-for"),
    trustedProxyList(deps.config.trustedProxies),
  );
}
