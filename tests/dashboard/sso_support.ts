/**
 * The dashboard beside a real OpenID provider (`helpers/oidc_provider.ts`) registered as the
 * provider `idp`, a cookie-keeping client that walks the whole redirect dance (Sovra → the
 * provider's login form → back to Sovra's callback), and a snapshot of everything a sign-in
 * could create (users, memberships, identities, sessions, managed marks) to assert that a
 * refusal created nothing.
 */
import { type DashboardHarness, startDashboardHarness } from "./support.ts";
import { startIdentityProvider, type TestIdp } from "../helpers/oidc_provider.ts";
import { addProvider, bindProvider } from "../../src/dashboard/areas/sso_settings.ts";
import type { Role } from "../../src/state/account_records.ts";

export const PROVIDER = "idp";
export const SECRET_ENV = "TEST_IDP_CLIENT_SECRET";

export interface SsoHarness extends AsyncDisposable {
  d: DashboardHarness;
  idp: TestIdp;
  url: string;
  org: string;
  /** Binds `org` (default the harness's) to the provider with these rules. */
  bind(
    rules: { domains?: string[]; groups?: string[]; require_sso?: boolean },
    org?: string,
  ): Promise<void>;
  snapshot(): Promise<string>;
}

export async function startSsoHarness(
  options: {
    env?: Record<string, string>;
    /** Register the provider `idp` (default); false leaves it to the test (the operator page). */
    addProvider?: boolean;
  } = {},
): Promise<SsoHarness> {
  const secret = `s-${crypto.randomUUID()}`;
  const d = await startDashboardHarness({ env: { [SECRET_ENV]: secret, ...options.env } });
  let idp: TestIdp | undefined;
  try {
    idp = await startIdentityProvider({
      redirectUris: [`${d.url}/sso/callback`],
      postLogoutRedirectUris: [`${d.url}/login`],
      clientSecret: secret,
    });
    if (options.addProvider === false) return harness(d, idp);
    await addProvider(d.dash.deps, {
      id: PROVIDER,
      name: "Test IdP",
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret_env: SECRET_ENV,
      scopes: "openid email profile groups",
      redirect_url: `${d.url}/sso/callback`,
    }, "test");
  } catch (error) {
    await idp?.close();
    await d.close();
    throw error;
  }
  return harness(d, idp);
}

function harness(d: DashboardHarness, idp: TestIdp): SsoHarness {
  const deps = d.dash.deps;
  const h: SsoHarness = {
    d,
    idp,
    url: d.url,
    org: d.h.org,
    async bind(rules, org = d.h.org) {
      await bindProvider(deps, org, { provider: PROVIDER, ...rules }, "test");
    },
    async snapshot() {
      const users = (await deps.accounts.listUsers()).map((u) => u.email).sort();
      const state: Record<string, unknown> = { users };
      for (const org of [d.h.org, d.otherOrg]) {
        const members = await deps.accounts.listMembersOfOrg(org);
        state[`members:${org}`] = members.map((m) => `${m.user}:${m.role}`).sort();
        const managed = [];
        for (const m of members) if (await deps.sso.getManaged(org, m.user)) managed.push(m.user);
        state[`managed:${org}`] = managed.sort();
      }
      const identities = [];
      for (const u of await deps.accounts.listUsers()) {
        for (const i of await deps.sso.listIdentitiesOfUser(u.id)) identities.push(i.subject);
      }
      state.identities = identities.sort();
      state.sessions = await countSessions(d);
      return JSON.stringify(state);
    },
    async [Symbol.asyncDispose]() {
      await idp.close();
      await d.close();
    },
  };
  return h;
}

/** Sessions in the store, whichever backend it is. */
async function countSessions(d: DashboardHarness): Promise<number> {
  const store = d.dash.deps.store as unknown as {
    kv?: Deno.Kv;
    sql?: (s: TemplateStringsArray) => Promise<Array<{ n: bigint }>>;
  };
  if (store.sql) return Number((await store.sql`select count(*) as n from sovra_sessions`)[0]!.n);
  let n = 0;
  for await (const _ of store.kv!.list({ prefix: ["session"] })) n++;
  return n;
}

export interface Page {
  status: number;
  url: string;
  html: string;
}

/** A browser without a browser: cookies by name (every server is 127.0.0.1), manual redirects. */
export class FlowClient {
  readonly jar = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size > 0) {
      headers.set("cookie", [...this.jar].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    if (init.method === "POST") headers.set("origin", new URL(url).origin);
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at).trim();
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (gone) this.jar.delete(name);
      else this.jar.set(name, pair!.slice(at + 1));
    }
    return res;
  }

  /** GETs, following redirects, to the first page that is not one. */
  async follow(url: string, init: RequestInit = {}): Promise<Page> {
    let res = await this.request(url, init);
    let at = url;
    for (let hops = 0; res.status >= 300 && res.status < 400; hops++) {
      if (hops > 20) throw new Error("redirect loop");
      await res.body?.cancel();
      at = new URL(res.headers.get("location")!, at).href;
      res = await this.request(at);
    }
    return { status: res.status, url: at, html: await res.text() };
  }

  /** Submits a form (urlencoded) and follows the redirects. */
  submit(url: string, fields: Record<string, string>): Promise<Page> {
    return this.follow(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /**
   * Starts at `start` (a Sovra URL redirecting to the provider), signs in at the provider as
   * `login` when it asks, and returns the page Sovra's callback answers with.
   */
  async signInAt(start: string, login: string, init: RequestInit = {}): Promise<Page> {
    const page = await this.follow(start, init);
    const form = page.html.match(/action="(\/interaction\/[\w-]+\/login)"/);
    if (!form) return page;
    return await this.submit(new URL(form[1]!, page.url).href, { login });
  }

  /**
   * Runs a sign-in up to the provider's redirect back to Sovra and returns that callback URL
   * without visiting it (the flow's cookie stays in the jar).
   */
  async callbackUrl(base: string, login: string): Promise<string> {
    let at = `${base}/sso/start?provider=${PROVIDER}`;
    let res = await this.request(at);
    for (let hops = 0; hops < 20; hops++) {
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        at = new URL(res.headers.get("location")!, at).href;
        if (at.startsWith(`${base}/sso/callback`)) return at;
        res = await this.request(at);
        continue;
      }
      const html = await res.text();
      const form = html.match(/action="(\/interaction\/[\w-]+\/login)"/);
      if (!form) throw new Error(`no login form at ${at}: ${html.slice(0, 200)}`);
      at = new URL(form[1]!, at).href;
      res = await this.request(at, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ login }).toString(),
      });
    }
    throw new Error("no callback reached");
  }

  /** The whole SSO sign-in from the dashboard's button. */
  signIn(base: string, login: string, next = "/"): Promise<Page> {
    return this.signInAt(
      `${base}/sso/start?provider=${PROVIDER}&next=${encodeURIComponent(next)}`,
      login,
    );
  }

  async api(base: string, path: string, method = "GET", body?: unknown) {
    const res = await this.request(`${base}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
}

/** The refusal's message on an SSO page (the `#sso-refusal` box). */
export function refusalText(page: Page): string {
  const m = page.html.match(/id="sso-refusal"[^>]*>([\s\S]*?)<\/div>/);
  return (m?.[1] ?? "").replace(/&#39;|&#x27;/g, "'").replace(/&quot;/g, '"').replace(
    /&amp;/g,
    "&",
  );
}

export type { Role };
