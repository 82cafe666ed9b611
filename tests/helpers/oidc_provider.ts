/**
 * A real OpenID provider for the SSO tests: `oidc-provider` (panva's OpenID-certified OP, an
 * npm package pinned in deno.json; it runs under Deno through its `node:http` support, so no
 * Node.js install is needed) on 127.0.0.1 with its own RS256 keys. The test controls:
 * - the accounts it knows (login name = `sub`) and their claims (email, email_verified, groups);
 * - key rotation (`rotateKeys`: a new key signs, the old one leaves the JWKS; the OP restarts on
 *   the same address, the relying party does not);
 * - the ID token of the next token responses (`tamper`), to send forged, expired or otherwise
 *   wrong tokens through the real token endpoint; `sign` signs claims with the current key or
 *   any other (jose).
 * Its login page is a plain form (`input[name=login]`), its consent is implicit.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as jose from "jose";

/** The part of oidc-provider's API these tests use (the package ships no types). */
interface OidcContext {
  path: string;
  body: unknown;
  oidc: {
    client?: { clientId: string };
    session?: { accountId?: string };
    params?: Record<string, unknown>;
    provider: { Grant: new (init: { clientId: string; accountId: string }) => OidcGrant };
  };
}
interface OidcGrant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface OidcProvider {
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
  interactionFinished(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    result: unknown,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  use(middleware: (ctx: OidcContext, next: () => Promise<void>) => Promise<void>): void;
}
type OidcProviderClass = new (issuer: string, config: Record<string, unknown>) => OidcProvider;

export interface IdpClaims {
  email?: string;
  email_verified?: boolean | string;
  groups?: string[];
  name?: string;
  [claim: string]: unknown;
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

/** Rewrites an ID token: gets its claims and header, returns the token to send. */
export type Tamper = (
  claims: jose.JWTPayload,
  header: jose.ProtectedHeaderParameters,
) => Promise<string>;

export interface TestIdp extends AsyncDisposable {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** login name (the `sub`) → claims. */
  accounts: Map<string, IdpClaims>;
  /** The key signing ID tokens now. */
  key: SigningKey;
  /** Until cleared, every token response's ID token goes through this. */
  tamper: Tamper | undefined;
  /** Requests the OP received, by path (e.g. `/jwks`, `/token`). */
  hits: Map<string, number>;
  sign(claims: jose.JWTPayload, key?: SigningKey): Promise<string>;
  /** A new signing key; the old one leaves the JWKS. Returns the old key. */
  rotateKeys(): Promise<SigningKey>;
  close(): Promise<void>;
}

let keyCounter = 0;

async function newKey(): Promise<{ key: SigningKey; jwk: jose.JWK }> {
  const { privateKey } = await jose.generateKeyPair("RS256", { extractable: true });
  const kid = `test-key-${++keyCounter}-${crypto.randomUUID().slice(0, 8)}`;
  const jwk = { ...(await jose.exportJWK(privateKey)), kid, use: "sig", alg: "RS256" };
  return { key: { kid, privateKey: privateKey as CryptoKey }, jwk };
}

/** oidc-provider prints runtime and development notices while it loads and starts. */
async function quietly<T>(fn: () => Promise<T> | T): Promise<T> {
  const { warn, info } = console;
  console.warn = console.info = (...args: unknown[]) => {
    if (!String(args[0]).startsWith("oidc-provider ")) warn(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

const LOGIN_FORM = (uid: string) =>
  `<!doctype html><meta charset=utf-8><title>Test IdP sign-in</title>
<form method=post action="/interaction/${uid}/login">
<label>Username <input name=login autofocus></label> <button type=submit>Sign in at the IdP</button>
</form>`;

export async function startIdentityProvider(options: {
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  clientSecret?: string;
}): Promise<TestIdp> {
  const Provider = (await quietly(() => import("oidc-provider"))).default as OidcProviderClass;
  const accounts = new Map<string, IdpClaims>();
  const hits = new Map<string, number>();
  const clientId = "sovra-dashboard";
  const clientSecret = options.clientSecret ?? `secret-${crypto.randomUUID()}`;
  let current: OidcProvider | undefined;

  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const op = current!;
    if (path === "/favicon.ico") {
      res.statusCode = 204;
      res.end();
      return;
    }
    const interaction = path.match(/^\/interaction\/([\w-]+)(\/login)?$/);
    if (interaction && req.method === "GET" && !interaction[2]) {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(LOGIN_FORM(interaction[1]!));
      return;
    }
    if (interaction?.[2] && req.method === "POST") {
      let body = "";
      req.on("data", (chunk) => body += chunk);
      req.on("end", () => {
        const login = new URLSearchParams(body).get("login") ?? "";
        op.interactionFinished(req, res, { login: { accountId: login } }, {
          mergeWithLastSubmission: false,
        }).catch((error: unknown) => {
          res.statusCode = 500;
          res.end(String(error));
        });
      });
      return;
    }
    op.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp: TestIdp = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    key: undefined as unknown as SigningKey,
    tamper: undefined,
    hits,
    sign: (claims, key = idp.key) =>
      new jose.SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
        .sign(key.privateKey),
    async rotateKeys() {
      const old = idp.key;
      await boot();
      return old;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    [Symbol.asyncDispose]() {
      return idp.close();
    },
  };

  /** A fresh OP on the same server with a new signing key (sessions start over). */
  async function boot(): Promise<void> {
    const { key, jwk } = await newKey();
    const config = {
      clients: [{
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
      }],
      jwks: { keys: [jwk] },
      // Scope claims in the ID token too, as Keycloak and Entra ID put them there.
      conformIdTokenClaims: false,
      claims: {
        openid: ["sub"],
        email: ["email", "email_verified"],
        profile: ["name"],
        groups: ["groups"],
      },
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: false },
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: (ctx: OidcContext, form: string) => {
            ctx.body = `<!doctype html><meta charset=utf-8><title>Sign out</title>${form}
<button type=submit form="op.logoutForm" value=yes name=logout>Yes, sign me out</button>`;
          },
        },
      },
      interactions: {
        url: (_ctx: OidcContext, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
      },
      cookies: { keys: [crypto.randomUUID()] },
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        Grant: 3600,
        IdToken: 600,
        Interaction: 600,
        Session: 3600,
      },
      findAccount: (_ctx: OidcContext, sub: string) => {
        const claims = accounts.get(sub);
        if (!claims) return undefined;
        return { accountId: sub, claims: () => ({ ...claims, sub }) };
      },
      async loadExistingGrant(ctx: OidcContext) {
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope(String(ctx.oidc.params?.scope ?? "openid"));
        await grant.save();
        return grant;
      },
    };
    const op = await quietly(() => new Provider(issuer, config));
    op.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path === "/token" && idp.tamper && typeof body?.id_token === "string") {
        // The OP's own token, just signed: read as it is.
        const claims = jose.decodeJwt(body.id_token);
        const header = jose.decodeProtectedHeader(body.id_token);
        ctx.body = { ...body, id_token: await idp.tamper(claims, header) };
      }
    });
    idp.key = key;
    current = op;
  }

  await boot();
  return idp;
}
