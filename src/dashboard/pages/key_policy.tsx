/**
 * One key's narrowing of the organization policy (`/orgs/:org/policies/keys/:key`): what it
 * narrows, the models it leaves allowed, a form (owners and admins) pre-filled with the key's
 * current narrowing, and the warning when its rules leave the organization's remote guardrail
 * classifier no route (saved anyway). The same area functions as the JSON API.
 */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { keyPolicyView, updateKeyPolicy } from "../areas/key_policies.ts";
import { can } from "../access.ts";
import { formError, formFields, policyFormEdit } from "./form.ts";
import { PolicyFields, policyFields } from "./policy_fields.tsx";
import { Notice } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; notice?: string } = {},
) {
  const access = c.var.access;
  const keyId = c.req.param("key")!;
  const view = await keyPolicyView(deps, access, keyId);
  const frame = await frameFor(deps, c.var.viewer, access, `Key policy ${keyId}`, "policies");
  const p = view.policy;
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.notice && <Notice>{extra.notice}</Notice>}
      {view.warnings.map((w) => <div class="banner" id="key-policy-warning">{w}</div>)}
      <div class="panel">
        <h2>Key {keyId}: what it narrows</h2>
        <p>
          A key can only be stricter than its organization: its rules are added to the
          organization's (strict only, more blocked providers, zero data retention, a smaller
          allow-list, a stronger guardrail). The text of a borderline request goes to the remote
          guardrail classifier only by a route these rules allow too.
        </p>
        <PolicyFields
          id="key-policy"
          fields={policyFields(p)}
          empty="It narrows nothing: the organization's policy applies as it is."
        />
        <p class="muted">
          Models this key may use: {view.models_allowed.join(", ") || "none"}.
        </p>
        <p>
          <a href={`/orgs/${access.org.id}/policies`}>Back to the organization policy</a>
        </p>
      </div>
      {can(access, "manage_policies") && (
        <div class="panel">
          <h2>Change this key's narrowing</h2>
          <form method="post" id="key-policy-form">
            <div class="row">
              <label>
                Sovereignty<select name="sovereignty">
                  <option value="any" selected={!p.sovereignty}>as the organization</option>
                  <option value="strict_only" selected={p.sovereignty === "strict_only"}>
                    strict only
                  </option>
                </select>
              </label>
              <label>
                Zero data retention only<select name="zdr_only">
                  <option value="false" selected={!p.zdr_only}>as the organization</option>
                  <option value="true" selected={p.zdr_only === true}>yes</option>
                </select>
              </label>
              <label>
                Guardrail<select name="guardrail">
                  <option value="off" selected={!p.guardrail}>as the organization</option>
                  <option value="flag" selected={p.guardrail === "flag"}>at least flag</option>
                  <option value="block" selected={p.guardrail === "block"}>block</option>
                </select>
              </label>
            </div>
            <div class="row">
              <label>
                Also blocked providers (comma-separated)<input
                  name="blocked_providers"
                  value={p.blocked_providers?.join(",") ?? ""}
                />
              </label>
              <label>
                Allowed models (comma-separated; empty = as the organization)<input
                  name="allowed_models"
                  value={p.allowed_models?.join(",") ?? ""}
                />
              </label>
            </div>
            <button type="submit">Save key policy</button>
          </form>
        </div>
      )}
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

/** The key policy routes, registered by the policies page (`policies.tsx`). */
export function registerKeyPolicyPage(router: Hono<DashEnv>, deps: DashboardDeps): void {
  router.get("/policies/keys/:key", (c) => render(c, deps));
  router.post("/policies/keys/:key", async (c) => {
    const form = await formFields(c);
    try {
      const key = c.req.param("key");
      const saved = await updateKeyPolicy(
        deps,
        c.var.access,
        c.var.viewer,
        key,
        policyFormEdit(form),
      );
      const notice = saved.warnings.length > 0
        ? "Key policy saved, with the warning above; gateways apply it within 30 s."
        : "Key policy saved; gateways apply it within 30 s.";
      return await render(c, deps, { notice });
    } catch (error) {
      const e = formError(error);
      return await render(c, deps, { error: e.message, status: e.status });
    }
  });
}
