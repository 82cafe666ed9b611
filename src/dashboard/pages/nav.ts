/**
 * The organization pages, in navigation order. Adding a page is one file and one line here:
 * write `pages/<name>.tsx` exporting an `OrgPage` (its path, title, who sees it, and a
 * `register` that mounts its GET view and form actions under `/orgs/:org/<path>`), put its
 * data access in `areas/<name>.ts`, and add its JSON routes to `api.ts`. A page that is not
 * built yet stays a `comingSoon` entry (shown greyed out).
 */
import type { Hono } from "hono";
import type { DashboardDeps, DashEnv, OrgAccess } from "../deps.ts";
import { overviewPage } from "./overview.tsx";
import { keysPage } from "./keys.tsx";
import { creditsPage } from "./credits.tsx";
import { alertsPage } from "./alerts.tsx";
import { usagePage } from "./usage.tsx";
import { membersPage } from "./members.tsx";
import { auditPage } from "./audit.tsx";
import { policiesPage } from "./policies.tsx";
import { routerPoliciesPage } from "./router_policies.tsx";
import { ssoPage } from "./sso_org.tsx";

export interface OrgPage {
  /** URL segment under `/orgs/:org/`. */
  path: string;
  title: string;
  /** Whether the navigation shows the page to this viewer (the routes check again). */
  visible(access: OrgAccess): boolean;
  register(router: Hono<DashEnv>, deps: DashboardDeps): void;
}

export interface ComingSoon {
  title: string;
  comingSoon: true;
}

export const ORG_PAGES: ReadonlyArray<OrgPage | ComingSoon> = [
  overviewPage,
  keysPage,
  usagePage,
  creditsPage,
  alertsPage,
  membersPage,
  routerPoliciesPage,
  policiesPage,
  ssoPage,
  auditPage,
];

export function isBuilt(page: OrgPage | ComingSoon): page is OrgPage {
  return !("comingSoon" in page);
}
