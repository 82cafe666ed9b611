/**
 * The JSON API of single sign-on's settings (the pages call the same `areas/sso_settings.ts`):
 * the operator's providers under `/api/sso/providers`, an organization's binding under
 * `/api/orgs/:org/sso`.
 */
import type { Hono } from "hono";
import { z } from "zod";
import type { DashboardDeps, DashEnv } from "./deps.ts";
import { ROLES } from "../state/account_records.ts";
import {
  operatorAddProvider,
  operatorProviders,
  operatorRemoveProvider,
  orgSsoView,
  removeOrgBinding,
  setOrgBinding,
} from "./areas/sso_settings.ts";

const NewProvider = z.strictObject({
  id: z.string(),
  name: z.string().optional(),
  issuer: z.string(),
  client_id: z.string(),
  client_secret_env: z.string(),
  scopes: z.union([z.string(), z.array(z.string())]).optional(),
  redirect_url: z.string(),
  groups_claim: z.string().optional(),
  email_verified_claim: z.string().optional(),
});
const Rule = z.strictObject({ match: z.string(), role: z.enum(ROLES as [string, ...string[]]) });
const Binding = z.strictObject({
  provider: z.string(),
  domains: z.array(Rule).max(100).default([]),
  groups: z.array(Rule).max(100).default([]),
  require_sso: z.boolean().default(false),
});

type Body = <T>(c: { req: { json(): Promise<unknown> } }, schema: z.ZodType<T>) => Promise<T>;
const asLines = (rules: Array<{ match: string; role: string }>) =>
  rules.map((r) => `${r.match}=${r.role}`);

export function registerSsoApi(
  api: Hono<DashEnv>,
  org: Hono<DashEnv>,
  deps: DashboardDeps,
  body: Body,
): void {
  api.get(
    "/sso/providers",
    async (c) => c.json({ data: await operatorProviders(deps, c.var.viewer) }),
  );
  api.post("/sso/providers", async (c) => {
    const input = await body(c, NewProvider);
    return c.json(await operatorAddProvider(deps, c.var.viewer, input), 201);
  });
  api.delete("/sso/providers/:id", async (c) => {
    await operatorRemoveProvider(deps, c.var.viewer, c.req.param("id"));
    return c.json({ deleted: true });
  });

  org.get("/sso", async (c) => c.json(await orgSsoView(deps, c.var.access)));
  org.put("/sso", async (c) => {
    const input = await body(c, Binding);
    return c.json(
      await setOrgBinding(deps, c.var.access, c.var.viewer, {
        provider: input.provider,
        domains: asLines(input.domains),
        groups: asLines(input.groups),
        require_sso: input.require_sso,
      }),
    );
  });
  org.delete("/sso", async (c) => {
    await removeOrgBinding(deps, c.var.access, c.var.viewer);
    return c.json({ deleted: true });
  });
}
