/** The page frame: head (assets served by Sovra itself), navigation, low-balance banner. */
import type { Child } from "hono/jsx";
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { isBuilt, ORG_PAGES } from "./nav.ts";
import { formatEur } from "../money.ts";
import { pendingInvitations } from "../areas/invitations.ts";

export interface Frame {
  title: string;
  viewer: Viewer;
  orgs: Array<{ id: string; name: string }>;
  access?: OrgAccess | undefined;
  /** The current page's path segment, or "operator". */
  current: string;
  lowBalance?: { balance: number; threshold: number } | undefined;
  /** How many invitations wait for the viewer's answer. */
  invitations: number;
  /** When an operator suspended the organization shown (its keys are refused meanwhile). */
  suspendedAt?: string | null | undefined;
}

/**
 * htmx keeps no history snapshots (`historyCacheSize: 0`: nothing of a page — a key shown once,
 * an invitation link, balances — is written to the tab's sessionStorage; Back fetches the page
 * from the server, which after sign-out means the sign-in page).
 */
const HTMX_CONFIG = JSON.stringify({
  historyCacheSize: 0,
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  responseHandling: [{ code: "204", swap: false }, { code: "...", swap: true }],
});

export function Head(props: { title: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="htmx-config" content={HTMX_CONFIG} />
      <title>{props.title} · Sovra</title>
      <link rel="stylesheet" href="/static/uPlot.min.css" />
      <link rel="stylesheet" href="/static/dashboard.css" />
      <script src="/static/htmx.min.js" defer></script>
      <script src="/static/uPlot.iife.min.js" defer></script>
      <script src="/static/dashboard.js" type="module"></script>
    </head>
  );
}

export function Layout(props: Frame & { children?: Child }) {
  const { access, viewer } = props;
  const org = access?.org;
  return (
    <html lang="en">
      <Head title={props.title} />
      <body hx-boost="true">
        <a class="skip-link" href="#main">Skip to content</a>
        <div class="shell">
          <aside class="side">
            <div class="brand">
              Sovra<span>.</span>
            </div>
            <button
              type="button"
              class="menu-toggle"
              data-menu
              aria-expanded="false"
              aria-controls="side-nav"
            >
              Menu
            </button>
            <div class="side-nav" id="side-nav">
              {org && (
                <nav aria-label="Organization">
                  <div class="section">{org.name}</div>
                  {ORG_PAGES.map((p) =>
                    isBuilt(p)
                      ? (access && p.visible(access) && (
                        <a
                          href={`/orgs/${org.id}/${p.path}`}
                          aria-current={props.current === p.path ? "page" : undefined}
                        >
                          {p.title}
                        </a>
                      ))
                      : (
                        <span class="soon">
                          {p.title}
                          <small>soon</small>
                        </span>
                      )
                  )}
                </nav>
              )}
              {(props.orgs.length > 1 || (props.orgs.length > 0 && !org)) && (
                <nav aria-label="Organizations">
                  <div class="section">Organizations</div>
                  {props.orgs.map((o) => <a href={`/orgs/${o.id}/overview`}>{o.name}</a>)}
                </nav>
              )}
              <nav aria-label="You">
                <div class="section">You</div>
                {(props.invitations > 0 || props.current === "invitations") && (
                  <a
                    href="/invitations"
                    aria-current={props.current === "invitations" ? "page" : undefined}
                  >
                    Invitations ({props.invitations})
                  </a>
                )}
                <a
                  href="/account"
                  aria-current={props.current === "account" ? "page" : undefined}
                >
                  Account security
                </a>
              </nav>
              {viewer.user.operator && (
                <nav aria-label="Operator">
                  <div class="section">Operator</div>
                  <a
                    href="/operator"
                    aria-current={props.current === "operator" ? "page" : undefined}
                  >
                    All organizations
                  </a>
                  <a
                    href="/operator/sso"
                    aria-current={props.current === "sso" && !org ? "page" : undefined}
                  >
                    Identity providers
                  </a>
                </nav>
              )}
            </div>
          </aside>
          <main class="main" id="main" tabindex={-1}>
            <div class="top">
              <h1>{props.title}</h1>
              <div class="who">
                <span>{viewer.user.email}</span>
                {access && <span class="pill">{access.role ?? "operator"}</span>}
                <form method="post" action="/logout" class="inline" hx-boost="false">
                  <button type="submit" class="link">Sign out</button>
                </form>
              </div>
            </div>
            {props.suspendedAt && (
              <div class="banner" role="alert" id="suspended-banner">
                This organization is suspended by the operator since{" "}
                {props.suspendedAt.slice(0, 16).replace("T", " ")}{" "}
                UTC: its API keys are refused (403 organization_suspended) until it is restored.
              </div>
            )}
            {props.lowBalance && (
              <div class="banner" role="alert">
                Low balance: {formatEur(props.lowBalance.balance)} is below the warning threshold of
                {" "}
                {formatEur(props.lowBalance.threshold)}. Requests stop at zero (402).
              </div>
            )}
            {props.children}
          </main>
        </div>
      </body>
    </html>
  );
}

/**
 * The frame's data for a request: the viewer's organizations, the low-balance check and the
 * count of invitations waiting for the viewer.
 */
export async function frameFor(
  deps: DashboardDeps,
  viewer: Viewer,
  access: OrgAccess | undefined,
  title: string,
  current: string,
): Promise<Frame> {
  const orgs = [];
  for (const m of viewer.memberships) {
    const o = await deps.store.getOrg(m.org);
    if (o) orgs.push({ id: o.id, name: o.name });
  }
  let lowBalance: Frame["lowBalance"];
  let suspendedAt: string | null = null;
  if (access) {
    const settings = await deps.control.getOrgSettings(access.org.id);
    suspendedAt = settings.suspended_at;
    const org = (await deps.store.getOrg(access.org.id)) ?? access.org;
    const threshold = settings.low_balance_micro_eur;
    if (threshold !== null && org.balance_micro_eur < threshold) {
      lowBalance = { balance: org.balance_micro_eur, threshold };
    }
  }
  const invitations = (await pendingInvitations(deps, viewer)).length;
  return { title, viewer, orgs, access, current, lowBalance, invitations, suspendedAt };
}

export function ErrorNote(props: { message?: string | undefined }) {
  return props.message ? <div class="error" role="alert">{props.message}</div> : null;
}
