/**
 * OAuth2 access tokens for a Google service account by the JWT-bearer grant (RFC 7523):
 * an RS256 JWT signed with the account's key (`jose`), POSTed to the token URL. A token is
 * cached until a minute before it expires; concurrent callers share one grant request;
 * `invalidate` drops a token the upstream refused (401) so the next call fetches a new one.
 */
import { importPKCS8, SignJWT } from "jose";
import { z } from "zod";
import { UpstreamFailure } from "../upstream_failure.ts";
import { postUpstream } from "../transport/post_upstream.ts";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const REFRESH_MARGIN_MS = 60_000;
const ASSERTION_LIFETIME_S = 3600;

const ServiceAccount = z.looseObject({
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  private_key_id: z.string().nullish(),
  token_uri: z.string().nullish(),
});
type ServiceAccount = z.infer<typeof ServiceAccount>;

const TokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.number().positive().nullish(),
});

export interface TokenSource {
  token(signal: AbortSignal): Promise<string>;
  invalidate(token: string): void;
}

export interface TokenSourceOptions {
  /** The service-account JSON text (from the environment; never logged). */
  serviceAccountJson: string;
  /** Where the grant goes, and the JWT's `aud` (catalog `vertex.token_url`). */
  tokenUrl: string;
  /** Names the variable in error messages (the name, never the value). */
  envName: string;
  fetch: typeof fetch;
  now: () => number;
}

export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const account = parseAccount(options.serviceAccountJson, options.envName);
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function grant(signal: AbortSignal): Promise<string> {
    const key = await importKey(account, options.envName);
    const issuedAt = Math.floor(options.now() / 1000);
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({
        alg: "RS256",
        typ: "JWT",
        ...(account.private_key_id ? { kid: account.private_key_id } : {}),
      })
      .setIssuer(account.client_email)
      .setAudience(options.tokenUrl)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_LIFETIME_S)
      .sign(key);
    const response = await postUpstream({
      url: options.tokenUrl,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion,
      }),
      signal,
      fetch: options.fetch,
      failure: grantFailure,
    });
    const parsed = TokenAnswer.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) {
      throw new UpstreamFailure("unavailable", "The token endpoint sent an unreadable answer.");
    }
    const lifetimeMs = (parsed.data.expires_in ?? 3600) * 1000;
    cached = {
      token: parsed.data.access_token,
      refreshAt: options.now() + lifetimeMs - REFRESH_MARGIN_MS,
    };
    return parsed.data.access_token;
  }

  return {
    token(signal: AbortSignal): Promise<string> {
      if (cached !== undefined && options.now() < cached.refreshAt) {
        return Promise.resolve(cached.token);
      }
      // One grant serves every waiter, so it runs on its own deadline, not on the first
      // caller's signal (one client leaving must not fail the others); each caller still
      // stops waiting when its own signal aborts.
      pending ??= grant(AbortSignal.timeout(GRANT_TIMEOUT_MS)).finally(() => {
        pending = undefined;
      });
      return raceAbort(pending, signal);
    },
    invalidate(token: string): void {
      if (cached?.token === token) cached = undefined;
    },
  };
}

function parseAccount(json: string, envName: string): ServiceAccount {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  const parsed = ServiceAccount.safeParse(value);
  if (!parsed.success) {
    throw new UpstreamFailure(
      "auth",
      `The service account in '${envName}' is not valid JSON of a service account.`,
    );
  }
  return parsed.data;
}

const keys = new WeakMap<ServiceAccount, CryptoKey>();

async function importKey(account: ServiceAccount, envName: string): Promise<CryptoKey> {
  const known = keys.get(account);
  if (known !== undefined) return known;
  try {
    const key = await importPKCS8(account.private_key, "RS256");
    keys.set(account, key);
    return key;
  } catch (error) {
    throw new UpstreamFailure("auth", `The private key in '${envName}' could not be read.`, {
      cause: error,
    });
  }
}

const GRANT_TIMEOUT_MS = 30_000;

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A refused grant: 429 and 5xx are the token endpoint's trouble, the rest the account's. */
function grantFailure(response: Response): UpstreamFailure {
  const kind = response.status === 429
    ? "rate_limited"
    : response.status >= 500
    ? "unavailable"
    : "auth";
  return new UpstreamFailure(
    kind,
    `The token endpoint refused the service account (${response.status}).`,
    { status: response.status },
  );
}
