/**
 * Dashboard sessions: a random token in a cookie (HttpOnly, SameSite=Strict, `__Host-` + Secure
 * unless configured off), kept in the store only as its SHA-256, with an idle and an absolute
 * expiry. `last_seen` is written at most once a minute. A session remembers the identity
 * provider it was signed in through: organizations that require SSO count only such sessions.
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { DashboardDeps, Viewer } from "./deps.ts";
import type { UserRecord } from "../state/account_records.ts";
import { hashToken, newSecretToken } from "./secret_tokens.ts";
import { usableMemberships } from "./sso/require_sso.ts";

const TOUCH_EVERY_MS = 60_000;

/** Which password a session was signed in under: when it was set ("" for never). */
const passwordEpoch = (user: UserRecord) => user.password_changed_at ?? "";

/** A dashboard cookie's name: `__Host-` prefixed (Secure, Path=/, no Domain) unless turned off. */
export function dashboardCookieName(deps: Pick<DashboardDeps, "config">, name: string): string {
  return deps.config.dashboardSecureCookie ? `__Host-${name}` : name;
}

const cookieName = (deps: DashboardDeps) => dashboardCookieName(deps, "sovra_session");

/** How a session was signed in. */
export interface SessionStart {
  /** The identity provider it was signed in through. */
  ssoProvider?: string | undefined;
  /** The sign-in gave the account's own second factor (a TOTP or recovery code). */
  secondFactor?: boolean;
}

/**
 * Starts a session for `user`, as read before its credentials were checked: the session keeps
 * that record's password epoch, so a sign-in that raced a password change (checked against the
 * old password, written after the change ended every session) is refused at its first use.
 */
export async function startSession(
  deps: DashboardDeps,
  c: Context,
  user: UserRecord,
  how: SessionStart = {},
) {
  const token = newSecretToken();
  const now = deps.now();
  const maxMs = deps.config.sessionMaxHours * 3_600_000;
  await deps.accounts.createSession({
    hash: hashToken(token),
    user: user.id,
    created: new Date(now).toISOString(),
    last_seen: new Date(now).toISOString(),
    expires: new Date(now + maxMs).toISOString(),
    ...(how.ssoProvider ? { sso_provider: how.ssoProvider } : {}),
    second_factor: how.secondFactor === true,
    password_epoch: passwordEpoch(user),
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
  if (session.password_epoch !== undefined && session.password_epoch !== passwordEpoch(user)) {
    await deps.accounts.deleteSession(hash);
    return undefined;
  }
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
    secondFactor: session.second_factor ?? null,
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
 * ends) that counts as signed in with the second factor: after this browser confirmed one.
 */
export async function renewSession(deps: DashboardDeps, c: Context, viewer: Viewer) {
  await deps.accounts.deleteSession(viewer.sessionHash);
  await startSession(deps, c, viewer.user, {
    ssoProvider: viewer.ssoProvider ?? undefined,
    secondFactor: true,
  });
}
