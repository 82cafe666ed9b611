/**
 * Dashboard sessions: a random token in a cookie (HttpOnly, SameSite=Strict, `__Host-` + Secure
 * unless configured off), kept in the store only as its SHA-256, with an idle and an absolute
 * expiry. `last_seen` is written at most once a minute. A session remembers the identity
 * provider it was signed in through: organizations that require SSO count only such sessions.
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { DashboardDeps, Viewer } from "./deps.ts";
import { hashToken, newSecretToken } from "./secret_tokens.ts";
import { usableMemberships } from "./sso/require_sso.ts";

const TOUCH_EVERY_MS = 60_000;

/** A dashboard cookie's name: `__Host-` prefixed (Secure, Path=/, no Domain) unless turned off. */
export function dashboardCookieName(deps: Pick<DashboardDeps, "config">, name: string): string {
  return deps.config.dashboardSecureCookie ? `__Host-${name}` : name;
}

const cookieName = (deps: DashboardDeps) => dashboardCookieName(deps, "sovra_session");

/** Starts a session; `ssoProvider` names the identity provider it was signed in through. */
export async function startSession(
  deps: DashboardDeps,
  c: Context,
  userId: string,
  ssoProvider?: string,
) {
  const token = newSecretToken();
  const now = deps.now();
  const maxMs = deps.config.sessionMaxHours * 3_600_000;
  await deps.accounts.createSession({
    hash: hashToken(token),
    user: userId,
    created: new Date(now).toISOString(),
    last_seen: new Date(now).toISOString(),
    expires: new Date(now + maxMs).toISOString(),
    ...(ssoProvider ? { sso_provider: ssoProvider } : {}),
  });
  setCookie(c, cookieName(deps), token, {
    path: "/",
    httpOnly: true,
    sameSite: "Strict",
    secure: deps.config.dashboardSecureCookie,
    maxAge: Math.floor(maxMs / 1000),
  });
}

/** The signed-in viewer, or undefined (and the stale session removed) when none is valid. */
export async function loadViewer(deps: DashboardDeps, c: Context): Promise<Viewer | undefined> {
  const token = getCookie(c, cookieName(deps));
  if (!token || token.length > 100) return undefined;
  const hash = hashToken(token);
  const session = await deps.accounts.getSession(hash);
  if (!session) return undefined;
  const now = deps.now();
  const idleMs = deps.config.sessionIdleMinutes * 60_000;
  const lastSeen = Date.parse(session.last_seen);
  if (now >= Date.parse(session.expires) || now - lastSeen >= idleMs) {
    await deps.accounts.deleteSession(hash);
    return undefined;
  }
  const user = await deps.accounts.getUser(session.user);
  if (!user) return undefined;
  if (now - lastSeen >= TOUCH_EVERY_MS) {
    await deps.accounts.touchSession(hash, new Date(now).toISOString());
  }
  const memberships = await usableMemberships(
    deps,
    await deps.accounts.listMembershipsOfUser(user.id),
    session.sso_provider,
  );
  return {
    user,
    sessionHash: hash,
    memberships,
    ssoProvider: session.sso_provider ?? null,
    sessionCreated: session.created,
  };
}

export async function endSession(deps: DashboardDeps, c: Context, viewer: Viewer | undefined) {
  if (viewer) await deps.accounts.deleteSession(viewer.sessionHash);
  setCookie(c, cookieName(deps), "", {
    path: "/",
    httpOnly: true,
    sameSite: "Strict",
    secure: deps.config.dashboardSecureCookie,
    maxAge: 0,
  });
}

/**
 * Replaces the viewer's session with a new one for the same account and provider (the old one
 * ends): after a step that makes the session worth more, such as confirming a second factor.
 */
export async function renewSession(deps: DashboardDeps, c: Context, viewer: Viewer) {
  await deps.accounts.deleteSession(viewer.sessionHash);
  await startSession(deps, c, viewer.user.id, viewer.ssoProvider ?? undefined);
}
