/**
 * A real gateway (over the openai simulator) and the dashboard beside it on the same KV
 * file, plus a small cookie-keeping client for the dashboard's JSON API.
 */
import { chatModel, type Harness, startHarness, type TestModel } from "../helpers/harness.ts";
import { type Dashboard, startDashboard } from "../../src/dashboard/server.ts";
import { silentLogger } from "../../src/log.ts";
import type { Role } from "../../src/state/account_records.ts";
import { hashPassword } from "../../src/dashboard/passwords.ts";
import { randomId } from "../../src/util/ids.ts";
import type { Store } from "../../src/state/store.ts";

export const PASSWORD = "correct horse battery staple";
export const MODEL = "acme/chat";
/** A model whose upstream answers 400 (a failed request with a metadata row). */
export const BROKEN_MODEL = "acme/broken";

export interface DashboardHarness extends AsyncDisposable {
  h: Harness;
  dash: Dashboard;
  url: string;
  /** Milliseconds added to the dashboard's clock (session expiry tests). */
  clock: { offset: number };
  /** A second organization, for isolation checks. */
  otherOrg: string;
  /** Creates a user with PASSWORD and, optionally, a role in `org`. */
  user(email: string, org?: string, role?: Role, operator?: boolean): Promise<string>;
  close(): Promise<void>;
}

export async function startDashboardHarness(
  options: {
    keyCacheSeconds?: number;
    credits?: number;
    env?: Record<string, string>;
    /** More catalog models (besides MODEL and BROKEN_MODEL). */
    models?: TestModel[];
    /** Wraps the (real) store the dashboard is given, e.g. to count its reads. */
    wrapStore?: (store: Store) => Store;
  } = {},
): Promise<DashboardHarness> {
  const h = await startHarness({
    models: [
      chatModel(MODEL, "sim-model"),
      chatModel(BROKEN_MODEL, "fail-400"),
      ...(options.models ?? []),
    ],
    env: { SOVRA_KEY_CACHE_SECONDS: String(options.keyCacheSeconds ?? 1), ...options.env },
    ...(options.credits !== undefined ? { credits: options.credits } : {}),
  });
  const clock = { offset: 0 };
  const config = {
    ...h.gateway.deps.config,
    dashboardPort: 0,
    // A cheap hash cost keeps the suite fast; production uses the default (2^17).
    passwordScryptLogN: 10,
  };
  const dash = startDashboard({
    config,
    store: options.wrapStore ? options.wrapStore(h.store) : h.store,
    log: silentLogger,
    apiUrl: h.url,
    catalog: () => h.gateway.deps.catalog.current,
    now: () => Date.now() + clock.offset,
  });
  const other = await h.admin(["org", "create"], {
    name: "Other org",
    "credits-micro-eur": "5000000",
  });
  const logN = config.passwordScryptLogN;
  return {
    h,
    dash,
    url: dash.url,
    clock,
    otherOrg: String(other.id),
    async user(email, org, role, operator = false) {
      const id = randomId("usr_", 12);
      await dash.deps.accounts.createUser({
        id,
        email,
        password_hash: await hashPassword(PASSWORD, logN),
        operator,
        created: new Date().toISOString(),
        password_changed_at: null,
      });
      if (org && role) {
        await dash.deps.accounts.addMembership({
          org,
          user: id,
          role,
          created: new Date().toISOString(),
        });
      }
      return id;
    },
    async close() {
      await dash.close();
      await h.close();
    },
    [Symbol.asyncDispose](this: { close(): Promise<void> }) {
      return this.close();
    },
  };
}

/** A browser-like client of the JSON API: keeps the session cookie, sends JSON + Origin. */
export class ApiClient {
  cookie = "";
  constructor(readonly base: string) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const res = await fetch(`${this.base}${path}`, {
      method,
      redirect: "manual",
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(method !== "GET" ? { origin: this.base } : {}),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const set = res.headers.get("set-cookie");
    if (set) {
      const pair = set.split(";")[0]!;
      this.cookie = pair.endsWith("=") ? "" : pair;
    }
    return res;
  }

  async json(method: string, path: string, body?: unknown) {
    const res = await this.request(method, path, body);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  }

  get(path: string) {
    return this.json("GET", path);
  }
  post(path: string, body: unknown = {}) {
    return this.json("POST", path, body);
  }

  static async signedIn(base: string, email: string, password = PASSWORD): Promise<ApiClient> {
    const client = new ApiClient(base);
    const res = await client.post("/api/login", { email, password });
    if (res.status !== 200) {
      throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return client;
  }
}
