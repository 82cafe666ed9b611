/**
 * The dashboard's JSON API under `/api/`: everything the pages do, with the same session and
 * role checks (the pages call the same `areas/` functions). Bodies are JSON, validated by zod;
 * errors are the spec's error object. Organization routes resolve `:org` through the
 * viewer's memberships first (another organization's id is 404).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { DashboardDeps, DashEnv } from "./deps.ts";
import { badInput } from "./errors.ts";
import { publicUser, setPasswordWithToken, signIn } from "./areas/accounts.ts";
import { endSession, startSession } from "./sessions.ts";
import { overview } from "./areas/overview.ts";
import { createKey, keySnippets, listKeys, revokeKey } from "./areas/keys.ts";
import { changeKeyBudget, changeKeyExpiry, keySettings, rotateKey } from "./areas/key_settings.ts";
import { BUDGET_PERIODS } from "../util/budget_period.ts";
import { alertsView, changeAlerts, rotateAlertSecret, sendTestAlert } from "./areas/alerts.ts";
import { grantCredits, ledger, updateSettings } from "./areas/credits.ts";
import { parseRange, recentRequests, toCsv, usageSeries } from "./areas/usage.ts";
import { changeMember, inviteMember, listMembers, parseRole } from "./areas/members.ts";
import { createOrg, listAllOrgs } from "./areas/operator.ts";
import {
  acceptInvitation,
  createAccountFromInvitation,
  declineInvitation,
  orgInvitations,
  pendingInvitations,
  revokeInvitation,
} from "./areas/invitations.ts";
import { globalAudit, orgAudit } from "./areas/audit_log.ts";
import { dryRun, policyView, updatePolicy } from "./areas/policies.ts";
import { keyPolicyView, updateKeyPolicy } from "./areas/key_policies.ts";
import { liveModelStats } from "./areas/model_health.ts";
import { clientAddress, requireViewer, withOrgAccess } from "./middleware.ts";
import { exampleModel } from "./example_model.ts";
import {
  chatModels,
  deletePolicy,
  listPolicies,
  previewPolicy,
  savePolicy,
} from "./areas/router_policies.ts";
import { GuardrailRemoteChange } from "../policy/guardrail_remote_setting.ts";
import { registerSsoApi } from "./sso_api.ts";
import { providerSignOut } from "./sso/sign_out.ts";
import { registerAccountApi, registerPublicAccountApi } from "./account_api.ts";
import { secondStepFor } from "./areas/second_step.ts";

async function body<T>(c: { req: { json(): Promise<unknown> } }, schema: z.ZodType<T>): Promise<T> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw badInput("The body is not valid JSON.");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.join(".");
    throw badInput(`Invalid '${path || "body"}': ${issue.message}.`, path || undefined);
  }
  return parsed.data;
}

const Login = z.object({ email: z.string().max(254), password: z.string().max(200) });
const SetPassword = z.object({ token: z.string().max(100), password: z.string().max(200) });
const NewKey = z.object({
  name: z.string(),
  rpm: z.number().int().positive().optional(),
  expires_at: z.string().nullish(),
  budget_micro_eur: z.number().int().positive().nullish(),
  budget_period: z.enum(BUDGET_PERIODS).optional(),
});
const KeyChange = z.object({
  expires_at: z.string().nullable().optional(),
  budget_micro_eur: z.number().int().positive().nullable().optional(),
  budget_period: z.enum(BUDGET_PERIODS).optional(),
});
const KeyRotation = z.object({
  grace_seconds: z.number().int().nonnegative().optional(),
  expires_at: z.string().nullish(),
});
const Grant = z.object({
  amount_micro_eur: z.number().int().positive(),
  note: z.string().max(200).nullish(),
});
const Settings = z.object({
  low_balance_micro_eur: z.number().int().nonnegative().nullable().optional(),
  rpm_ceiling: z.number().int().positive().nullable().optional(),
  require_2fa: z.boolean().optional(),
});
const AlertChange = z.strictObject({
  webhook_url: z.string().nullable().optional(),
  balance_below_micro_eur: z.number().int().nonnegative().nullable().optional(),
  daily_spend_above_micro_eur: z.number().int().nonnegative().nullable().optional(),
  key_budget_percents: z.array(z.number().int().min(1).max(100)).max(10).optional(),
  email: z.string().nullable().optional(),
});
const PolicyChange = z.object({
  sovereignty: z.enum(["any", "strict_only"]).optional(),
  blocked_providers: z.array(z.string()).optional(),
  zdr_only: z.boolean().optional(),
  allowed_models: z.array(z.string()).nullable().optional(),
  guardrail: z.enum(["off", "flag", "block"]).optional(),
  guardrail_remote: GuardrailRemoteChange.optional(),
});
const KeyPolicyChange = z.strictObject({
  sovereignty: z.enum(["any", "strict_only"]).optional(),
  blocked_providers: z.array(z.string()).optional(),
  zdr_only: z.boolean().optional(),
  allowed_models: z.array(z.string()).nullable().optional(),
  guardrail: z.enum(["off", "flag", "block"]).optional(),
});
const DryRunBody = z.object({
  model: z.string(),
  text: z.string().max(65_536).optional(),
  channel: z.enum(["user", "tool"]).optional(),
});
const Invite = z.object({ email: z.string(), role: z.string() });
const RoleChange = z.object({ role: z.string() });
const PolicyDraftBody = z.object({
  id: z.string(),
  name: z.string().optional(),
  pool: z.array(z.string()),
  strategy: z.string().default("auto"),
  threshold: z.number().int().optional(),
  sticky_seconds: z.number().int().optional(),
});
const NewOrg = z.object({
  name: z.string(),
  credits_micro_eur: z.number().int().nonnegative().optional(),
});

function limitOf(raw: string | undefined, fallback: number, max: number): number {
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw badInput(`limit must be between 1 and ${max}.`, "limit");
  }
  return n;
}

export function createApi(deps: DashboardDeps): Hono<DashEnv> {
  const api = new Hono<DashEnv>();

  // Public: sign in and set a password.
  api.post("/login", async (c) => {
    const input = await body(c, Login);
    const user = await signIn(deps, { ...input, address: clientAddress(c, deps) });
    // With two-factor sign-in the password alone makes no session: `/login/2fa` completes it.
    const challenge = await secondStepFor(deps, user, "/");
    if (challenge) return c.json({ two_factor_required: true, challenge });
    await startSession(deps, c, user.id);
    return c.json({ user: publicUser(user) });
  });
  registerPublicAccountApi(api, deps, body);
  api.post("/set-password", async (c) => {
    const input = await body(c, SetPassword);
    const user = await setPasswordWithToken(deps, input.token, input.password);
    return c.json({ user: publicUser(user) });
  });
  api.post("/invitations/create-account", async (c) => {
    const input = await body(c, SetPassword);
    const made = await createAccountFromInvitation(deps, input.token, input.password);
    return c.json({ user: publicUser(made.user), org: made.org, role: made.role }, 201);
  });

  // Everything else needs a session.
  api.use("*", requireViewer(deps, "json"));
  api.post("/logout", async (c) => {
    await endSession(deps, c, c.var.viewer);
    const endAtProvider = (await providerSignOut(deps, c.var.viewer))?.url;
    return c.json({
      signed_out: true,
      ...(endAtProvider ? { end_session_url: endAtProvider } : {}),
    });
  });
  api.get("/session", (c) => {
    const v = c.var.viewer;
    return c.json({ user: publicUser(v.user), memberships: v.memberships });
  });
  api.get("/orgs", async (c) => {
    const v = c.var.viewer;
    const orgs = [];
    for (const m of v.memberships) {
      const org = await deps.store.getOrg(m.org);
      if (org) orgs.push({ id: org.id, name: org.name, role: m.role });
    }
    return c.json({ data: orgs });
  });

  // The signed-in account's invitations.
  api.get(
    "/invitations",
    async (c) => c.json({ data: await pendingInvitations(deps, c.var.viewer) }),
  );
  api.post(
    "/invitations/:id/accept",
    async (c) => c.json(await acceptInvitation(deps, c.var.viewer, c.req.param("id"))),
  );
  api.post(
    "/invitations/:id/decline",
    async (c) => c.json(await declineInvitation(deps, c.var.viewer, c.req.param("id"))),
  );

  // Operator.
  api.get("/operator/orgs", async (c) => c.json({ data: await listAllOrgs(deps, c.var.viewer) }));
  api.post("/operator/orgs", async (c) => {
    const input = await body(c, NewOrg);
    return c.json(await createOrg(deps, c.var.viewer, input), 201);
  });
  api.get(
    "/operator/audit",
    async (c) =>
      c.json({
        data: await globalAudit(deps, c.var.viewer, limitOf(c.req.query("limit"), 100, 1000)),
      }),
  );

  // One organization.
  const org = new Hono<DashEnv>();
  org.use("*", withOrgAccess(deps));
  org.get("/overview", async (c) => c.json(await overview(deps, c.var.access)));
  org.get("/keys", async (c) => c.json({ data: await listKeys(deps, c.var.access) }));
  org.post("/keys", async (c) => {
    const input = await body(c, NewKey);
    const created = await createKey(deps, c.var.access, c.var.viewer, input);
    const snippets = keySnippets(deps.apiUrl, created.key, exampleModel(deps));
    return c.json({ ...created, snippets }, 201);
  });
  org.post(
    "/keys/:key/revoke",
    async (c) => c.json(await revokeKey(deps, c.var.access, c.var.viewer, c.req.param("key"))),
  );
  org.get(
    "/keys/:key",
    async (c) => c.json(await keySettings(deps, c.var.access, c.req.param("key"))),
  );
  org.patch("/keys/:key", async (c) => {
    const input = await body(c, KeyChange);
    const key = c.req.param("key");
    if (input.expires_at === undefined && input.budget_micro_eur === undefined) {
      throw badInput("Give expires_at or budget_micro_eur (with budget_period).");
    }
    let view = await keySettings(deps, c.var.access, key);
    if (input.expires_at !== undefined) {
      view = await changeKeyExpiry(deps, c.var.access, c.var.viewer, key, input.expires_at);
    }
    if (input.budget_micro_eur !== undefined) {
      view = await changeKeyBudget(deps, c.var.access, c.var.viewer, key, {
        budget_micro_eur: input.budget_micro_eur,
        budget_period: input.budget_period,
      });
    }
    return c.json(view);
  });
  org.post("/keys/:key/rotate", async (c) => {
    const input = await body(c, KeyRotation);
    const rotated = await rotateKey(deps, c.var.access, c.var.viewer, c.req.param("key"), input);
    const snippets = keySnippets(deps.apiUrl, rotated.created.key, exampleModel(deps));
    return c.json({ ...rotated.created, snippets, previous: rotated.previous }, 201);
  });
  org.get(
    "/keys/:key/policy",
    async (c) => c.json(await keyPolicyView(deps, c.var.access, c.req.param("key"))),
  );
  org.put("/keys/:key/policy", async (c) => {
    const input = await body(c, KeyPolicyChange);
    const key = c.req.param("key");
    return c.json(await updateKeyPolicy(deps, c.var.access, c.var.viewer, key, input));
  });
  org.get("/credits", async (c) => c.json(await ledger(deps, c.var.access)));
  org.post("/credits/grants", async (c) => {
    const input = await body(c, Grant);
    return c.json(await grantCredits(deps, c.var.access, c.var.viewer, input), 201);
  });
  org.patch("/settings", async (c) => {
    const input = await body(c, Settings);
    return c.json(await updateSettings(deps, c.var.access, c.var.viewer, input));
  });
  org.get("/alerts", async (c) => {
    const limit = limitOf(c.req.query("limit"), 50, 500);
    return c.json(await alertsView(deps, c.var.access, limit));
  });
  org.patch("/alerts", async (c) => {
    const input = await body(c, AlertChange);
    return c.json(await changeAlerts(deps, c.var.access, c.var.viewer, input));
  });
  org.post("/alerts/secret", async (c) => {
    c.header("cache-control", "no-store");
    return c.json(await rotateAlertSecret(deps, c.var.access, c.var.viewer), 201);
  });
  org.post(
    "/alerts/test",
    async (c) => c.json(await sendTestAlert(deps, c.var.access, c.var.viewer)),
  );
  org.get(
    "/usage",
    async (c) => c.json(await usageSeries(deps, c.var.access, parseRange(c.req.query("days")))),
  );
  const filters = (q: (name: string) => string | undefined) => ({
    model: q("model") || undefined,
    key: q("key") || undefined,
    status: q("status") || undefined,
    user: q("user") || undefined,
  });
  org.get("/requests", async (c) => {
    const limit = limitOf(c.req.query("limit"), 100, 1000);
    const rows = await recentRequests(deps, c.var.access, filters((n) => c.req.query(n)), limit);
    return c.json({ data: rows });
  });
  org.get("/requests.csv", async (c) => {
    const limit = limitOf(c.req.query("limit"), 10_000, 50_000);
    const rows = await recentRequests(deps, c.var.access, filters((n) => c.req.query(n)), limit);
    return c.body(toCsv(rows), 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="requests-${c.var.access.org.id}.csv"`,
    });
  });
  org.get(
    "/routing-policies",
    async (c) =>
      c.json({
        data: await listPolicies(deps, c.var.access),
        models: chatModels(deps),
        live: await liveModelStats(deps, c.var.access),
      }),
  );
  org.post("/routing-policies", async (c) => {
    const record = await savePolicy(
      deps,
      c.var.access,
      c.var.viewer,
      await body(c, PolicyDraftBody),
    );
    return c.json(record, 201);
  });
  org.post("/routing-policies/preview", async (c) => {
    return c.json(previewPolicy(deps, await body(c, PolicyDraftBody)));
  });
  org.delete("/routing-policies/:id", async (c) => {
    await deletePolicy(deps, c.var.access, c.var.viewer, c.req.param("id"));
    return c.json({ deleted: true });
  });
  org.get("/members", async (c) => c.json({ data: await listMembers(deps, c.var.access) }));
  org.post("/members", async (c) => {
    const input = await body(c, Invite);
    const result = await inviteMember(deps, c.var.access, c.var.viewer, {
      email: input.email,
      role: parseRole(input.role),
    });
    return c.json(result, 201);
  });
  org.get(
    "/invitations",
    async (c) => c.json({ data: await orgInvitations(deps, c.var.access) }),
  );
  org.delete(
    "/invitations/:id",
    async (c) =>
      c.json(await revokeInvitation(deps, c.var.access, c.var.viewer, c.req.param("id"))),
  );
  org.patch("/members/:user", async (c) => {
    const input = await body(c, RoleChange);
    const role = parseRole(input.role);
    return c.json(await changeMember(deps, c.var.access, c.var.viewer, c.req.param("user"), role));
  });
  org.delete(
    "/members/:user",
    async (c) =>
      c.json(await changeMember(deps, c.var.access, c.var.viewer, c.req.param("user"), null)),
  );
  org.get(
    "/audit",
    async (c) =>
      c.json({
        data: await orgAudit(deps, c.var.access, limitOf(c.req.query("limit"), 100, 1000)),
      }),
  );
  org.get("/policy", async (c) => c.json(await policyView(deps, c.var.access)));
  org.put("/policy", async (c) => {
    const input = await body(c, PolicyChange);
    await updatePolicy(deps, c.var.access, c.var.viewer, input);
    return c.json(await policyView(deps, c.var.access));
  });
  org.post("/policy/dry-run", async (c) => {
    const input = await body(c, DryRunBody);
    return c.json(await dryRun(deps, c.var.access, input));
  });
  registerSsoApi(api, org, deps, body);
  registerAccountApi(api, org, deps, body);
  api.route("/orgs/:org", org);
  return api;
}
