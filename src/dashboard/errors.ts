/**
 * The dashboard's refusals, as the gateway's one error type (the spec's error object). An
 * organization, key or member the viewer may not see is "not found", never "forbidden": an id
 * from another organization reveals nothing.
 */
import { GatewayError } from "../errors.ts";

export const notAuthenticated = () =>
  new GatewayError(401, "not_authenticated", "Sign in first (the session is missing or ended).");

export const invalidCredentials = () =>
  new GatewayError(401, "invalid_credentials", "The e-mail or the password is wrong.");

export const tooManyAttempts = (retryAfterSeconds: number) =>
  new GatewayError(429, "too_many_attempts", "Too many failed sign-ins; try again later.", {
    headers: { "retry-after": String(retryAfterSeconds) },
  });

export const forbidden = (what: string) =>
  new GatewayError(403, "forbidden", `Your role does not allow this: ${what}.`, {
    type: "invalid_request_error",
  });

export const notFound = (what: string) => new GatewayError(404, "not_found", `${what} not found.`);

export const conflict = (code: string, message: string) =>
  new GatewayError(409, code, message, { type: "invalid_request_error" });

export const badInput = (message: string, param?: string) =>
  new GatewayError(400, "invalid_request", message, param === undefined ? {} : { param });

export const csrfRefused = () =>
  new GatewayError(403, "csrf_refused", "Cross-site request refused.", {
    type: "invalid_request_error",
  });

/** A sign-in through an identity provider (or a password, where SSO is required) refused. */
export const ssoForbidden = (code: string, message: string) =>
  new GatewayError(403, code, message, { type: "invalid_request_error" });

/** An organization that requires two-factor sign-in, reached by a session without one. */
export const twoFactorRequired = (org: { id: string; name: string }) =>
  new GatewayError(
    403,
    "two_factor_required",
    `${org.name} requires two-factor sign-in: turn it on for your account (Account security) to reach it.`,
    { type: "invalid_request_error" },
  );
