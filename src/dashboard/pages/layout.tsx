/** The page frame: head (assets served by Sovra itself), navigation, low-balance banner. */
import type { Child } from "hono/jsx";
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { isBuilt, ORG_PAGES } from "./nav.ts";
import { formatEur } from "../money.ts";

export interface Frame {
  title: string;
  viewer: Viewer;
  orgs: Array<{ id: string; name: string }>;
  access?: OrgAccess | undefined;
  /** The current page's path segment, or "operator". */
  current: string;
  lowBalance?: { balance: number; threshold: number } | undefined;
}

const HTMX_CONFIG = JSON.stringify({
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
      <script src="/static/dashboard.js" defer></script>
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
        <div class="shell">
          <aside class="side">
            <div class="brand">
              Sovra<span>.</span>
            </div>
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
          </aside>
          <main class="main">
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
            {props.lowBalance && (
              <div class="banner" role="alert">
                Low balance: € {formatEur(props.lowBalance.balance)}{" "}
                is below the warning threshold of €{" "}
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

/** The frame's data for a request: the viewer's organizations and the low-balance check. */
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
  if (access) {
    const settings = await deps.control.getOrgSettings(access.org.id);
    const org = (await deps.store.getOrg(access.org.id)) ?? access.org;
    const threshold = settings.low_balance_micro_eur;
    if (threshold !== null && org.balance_micro_eur < threshold) {
      lowBalance = { balance: org.balance_micro_eur, threshold };
    }
  }
  return { title, viewer, orgs, access, current, lowBalance };
}

export function ErrorNote(props: { message?: string | undefined }) {
  return props.message ? <div class="error" role="alert">{props.message}</div> : null;
}
