/**
 * Organization policies: what each setting means, the models it leaves allowed, the form that
 * changes it (owners and admins; audit-logged), and a dry run ("would this request pass?").
 */
import type { Context } from "hono";
import type { OrgPage } from "./nav.ts";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { type DryRun, dryRun, policyPage, updatePolicy } from "../areas/policies.ts";
import { can } from "../access.ts";
import { formError, formFields, oneOf, policyFormEdit } from "./form.ts";
import { badInput } from "../errors.ts";
import { registerKeyPolicyPage } from "./key_policy.tsx";
import { changedFields, PolicyFields, policyFields } from "./policy_fields.tsx";
import { Notice, ScrollRegion } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; notice?: string; dry?: DryRun; dryError?: string } = {},
) {
  const access = c.var.access;
  const { view, keys } = await policyPage(deps, access);
  const frame = await frameFor(deps, c.var.viewer, access, "Organization policies", "policies");
  const base = `/orgs/${access.org.id}/policies`;
  const manage = can(access, "manage_policies");
  const p = view.policy;
  const allowed = view.models.filter((m) => m.allowed);
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.notice && <Notice>{extra.notice}</Notice>}
      <div class="cards">
        <div class="card">
          <div class="label">Sovereignty</div>
          <div class="value" id="sovereignty">{p.sovereignty}</div>
        </div>
        <div class="card">
          <div class="label">Zero data retention only</div>
          <div class="value" id="zdr">{p.zdr_only ? "yes" : "no"}</div>
        </div>
        <div class="card">
          <div class="label">Prompt-injection guardrail</div>
          <div class="value" id="guardrail">{p.guardrail}</div>
        </div>
        <div class="card">
          <div class="label">Remote guardrail layer</div>
          <div class="value" id="guardrail-remote">
            {p.guardrail_remote ? p.guardrail_remote.model : "off"}
          </div>
        </div>
        <div class="card">
          <div class="label">Models allowed</div>
          <div class="value" id="allowed-count">{allowed.length} / {view.models.length}</div>
        </div>
      </div>
      <div class="panel">
        <h2>What each setting means</h2>
        <ul>
          <li>
            <strong>Sovereignty — strict only</strong>: requests use only routes on strict-tier
            (EU-sovereign) providers. A fallback never leaves that set: when a strict primary fails,
            a pragmatic standby is skipped and the request fails. A model with no strict route is
            refused (403 policy_forbids_model).
          </li>
          <li>
            <strong>Blocked providers</strong>: their routes are never used, not even as a fallback.
          </li>
          <li>
            <strong>Zero data retention only</strong>: only providers whose catalog entry guarantees
            zero data retention.
          </li>
          <li>
            <strong>Allowed models</strong>: when set, every other model is refused.
          </li>
          <li>
            <strong>Guardrail</strong>: scans user messages and tool results (never audio) for
            prompt injection before any provider call. <em>flag</em>{" "}
            serves the request and marks it (header x-sovra-guardrail, request metadata);{" "}
            <em>block</em> refuses it with 400 prompt_injection_detected, unbilled. Start with flag.
          </li>
          <li>
            <strong>Remote guardrail layer</strong>{" "}
            (optional, off by default): a request the local scan finds borderline (it would flag it)
            is also put to a moderation model of the catalog, e.g. Mistral's (EU-served; its
            jailbreaking category), before any provider call. It can only make the verdict stronger:
            when the classifier sees an injection, <em>block</em> refuses the request and{" "}
            <em>flag</em>{" "}
            marks it as one block would refuse. Clear passes and local blocks never leave the
            gateway. The text goes only to a route your sovereignty, blocked-provider and ZDR rules
            allow, is never stored, and the check is not billed. If the classifier does not answer
            within the timeout (or fails), <em>fail open</em> keeps the local verdict,{" "}
            <em>fail closed</em> refuses the request (503 guardrail_unavailable, in block mode).
            {p.guardrail_remote && (
              <>
                {" "}Now: {p.guardrail_remote.model}, {p.guardrail_remote.timeout_ms} ms, fail{" "}
                {p.guardrail_remote.on_error}.
              </>
            )}
          </li>
        </ul>
        <p class="muted">Changes reach every gateway within 30 seconds.</p>
      </div>
      {manage && (
        <div class="panel">
          <h2>Change the policy</h2>
          <form method="post" action={base} id="policy-form">
            <div class="row">
              <label>
                Sovereignty<select name="sovereignty">
                  <option value="any" selected={p.sovereignty === "any"}>any</option>
                  <option value="strict_only" selected={p.sovereignty === "strict_only"}>
                    strict only
                  </option>
                </select>
              </label>
              <label>
                Zero data retention only<select name="zdr_only">
                  <option value="false" selected={!p.zdr_only}>no</option>
                  <option value="true" selected={p.zdr_only}>yes</option>
                </select>
              </label>
              <label>
                Guardrail<select name="guardrail">
                  {(["off", "flag", "block"] as const).map((g) => (
                    <option value={g} selected={p.guardrail === g}>{g}</option>
                  ))}
                </select>
              </label>
            </div>
            <div class="row">
              <label>
                Blocked providers (comma-separated)<input
                  name="blocked_providers"
                  value={p.blocked_providers.join(",")}
                  placeholder={view.providers.map((x) => x.id).slice(0, 3).join(",")}
                />
              </label>
              <label>
                Allowed models (comma-separated; empty = all)<input
                  name="allowed_models"
                  value={p.allowed_models?.join(",") ?? ""}
                />
              </label>
            </div>
            <div class="row">
              <label>
                Remote guardrail layer<select name="guardrail_remote_model">
                  <option value="off" selected={!p.guardrail_remote}>off</option>
                  {view.moderationModels.map((m) => (
                    <option
                      value={m.id}
                      selected={p.guardrail_remote?.model === m.id}
                      disabled={!m.allowed && p.guardrail_remote?.model !== m.id}
                    >
                      {m.id}
                      {m.allowed ? "" : ` (not reachable: ${m.reasons.join("; ")})`}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Timeout (ms, 50–5000)<input
                  name="guardrail_remote_timeout_ms"
                  type="number"
                  min={50}
                  max={5000}
                  value={String(p.guardrail_remote?.timeout_ms ?? 1500)}
                />
              </label>
              <label>
                When it does not answer<select name="guardrail_remote_on_error">
                  <option value="open" selected={p.guardrail_remote?.on_error !== "closed"}>
                    fail open (local verdict stands)
                  </option>
                  <option value="closed" selected={p.guardrail_remote?.on_error === "closed"}>
                    fail closed (refuse)
                  </option>
                </select>
              </label>
            </div>
            <button type="submit">Save policy</button>
          </form>
        </div>
      )}
      <div class="panel">
        <h2>Would this request pass?</h2>
        {
          /* The result replaces only its own region, just below the form, and the address stays
            the policies page's (so a reload shows the page, not a missing one). */
        }
        <form
          method="post"
          action={`${base}/dry-run`}
          class="row"
          id="dry-run-form"
          hx-post={`${base}/dry-run`}
          hx-target="#dry-run-result"
          hx-select="#dry-run-result"
          hx-swap="outerHTML"
          hx-push-url="false"
        >
          <label>
            Model<select name="model">
              {view.models.map((m) => (
                <option value={m.id} selected={extra.dry?.model === m.id}>{m.id}</option>
              ))}
            </select>
          </label>
          <label>
            Message or tool result (optional; scanned here, never stored)<input
              name="text"
              maxlength={4000}
            />
          </label>
          <label>
            As<select name="channel">
              <option value="user">user message</option>
              <option value="tool">tool result</option>
            </select>
          </label>
          <button type="submit" class="secondary">Check</button>
        </form>
        <div aria-live="polite">
          <div id="dry-run-result" data-reveal>
            {extra.dryError && <div class="error">{extra.dryError}</div>}
            {extra.dry && (
              <div id="dry-run" class={extra.dry.passes ? "notice" : "error"}>
                <p>
                  <strong>
                    {extra.dry.passes
                      ? `Passes: ${extra.dry.model} would be served.`
                      : `Refused: ${extra.dry.refusal!.status} ${extra.dry.refusal!.code}`}
                  </strong>{" "}
                  {extra.dry.refusal?.message}
                </p>
                <ScrollRegion label="Routes of the model">
                  <table>
                    <thead>
                      <tr>
                        <th>Route (provider)</th>
                        <th>Tier</th>
                        <th>Allowed</th>
                        <th>Why not</th>
                      </tr>
                    </thead>
                    <tbody>
                      {extra.dry.routes.map((r) => (
                        <tr>
                          <td>{r.provider}</td>
                          <td>{r.tier}</td>
                          <td>{r.allowed ? "yes" : "no"}</td>
                          <td>{r.reason ?? ""}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </ScrollRegion>
                {extra.dry.guardrail && (
                  <p>
                    Guardrail ({extra.dry.guardrail.mode}): {extra.dry.guardrail.verdict}
                    {extra.dry.guardrail.rule ? `, rule ${extra.dry.guardrail.rule}` : ""}
                    {extra.dry.guardrail.remote && (
                      <span id="dry-run-remote">
                        {` — borderline: a real request would also ask ${extra.dry.guardrail.remote.model}, which can still refuse it (fail ${extra.dry.guardrail.remote.on_error} if it does not answer). The dry run sends the text nowhere.`}
                      </span>
                    )}
                  </p>
                )}
              </div>
            )}
          </div>
        </div>
      </div>
      <div class="panel">
        <h2>Key narrowing</h2>
        <p class="muted">
          A key may be stricter than the organization, never looser. A key whose rules leave the
          remote guardrail classifier no route is marked: its borderline requests are then refused
          (fail closed) or decided by the local scan alone (fail open).
        </p>
        <ScrollRegion label="Key narrowing">
          <table id="key-policies">
            <thead>
              <tr>
                <th>Key</th>
                <th>Narrowing</th>
                <th>Warning</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr data-key={k.key_id}>
                  <td>
                    <a href={`${base}/keys/${k.key_id}`}>{k.name ?? k.key_id}</a>{" "}
                    <span class="muted">{k.prefix}</span>
                  </td>
                  <td>
                    <PolicyFields
                      fields={policyFields(k.policy)}
                      empty="none (as the organization)"
                    />
                  </td>
                  <td class="key-warning">{k.warnings.join(" ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>
      <div class="panel">
        <h2>Models under this policy</h2>
        <ScrollRegion label="Models under this policy">
          <table id="policy-models">
            <thead>
              <tr>
                <th>Model</th>
                <th>Allowed</th>
                <th>Why not</th>
              </tr>
            </thead>
            <tbody>
              {view.models.map((m) => (
                <tr data-model={m.id}>
                  <td>{m.id}</td>
                  <td>
                    <span class={`pill ${m.allowed ? "ok" : "error"}`}>
                      {m.allowed ? "allowed" : "refused"}
                    </span>
                  </td>
                  <td class="muted">{m.reasons.join("; ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>
      <div class="panel">
        <h2>Changes</h2>
        <ScrollRegion label="Policy changes">
          <table id="policy-changes">
            <thead>
              <tr>
                <th>When (UTC)</th>
                <th>By</th>
                <th>What changed</th>
              </tr>
            </thead>
            <tbody>
              {view.changes.map((e) => (
                <tr>
                  <td>{e.at.slice(0, 19).replace("T", " ")}</td>
                  <td>{e.actor}</td>
                  <td>
                    <PolicyFields fields={changedFields(e.before, e.after)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        {view.changes.length === 0 && <p class="muted">No change yet: the defaults apply.</p>}
      </div>
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

/** The remote layer's form fields as a change (`off` switches it off; absent fields: no change). */
function remoteChange(form: Record<string, string | undefined>) {
  const model = form.guardrail_remote_model;
  if (model === undefined) return {};
  if (model === "off") return { guardrail_remote: { model: null } };
  const timeout = form.guardrail_remote_timeout_ms;
  if (timeout !== undefined && !/^\d+$/.test(timeout)) {
    throw badInput("'guardrail_remote_timeout_ms' must be a whole number.", "guardrail_remote");
  }
  return {
    guardrail_remote: {
      model,
      ...(timeout === undefined ? {} : { timeout_ms: Number(timeout) }),
      ...(form.guardrail_remote_on_error === undefined ? {} : {
        on_error: oneOf(
          form.guardrail_remote_on_error,
          ["open", "closed"] as const,
          "guardrail_remote_on_error",
        )!,
      }),
    },
  };
}

export const policiesPage: OrgPage = {
  path: "policies",
  title: "Organization policies",
  visible: () => true,
  register(router, deps) {
    router.get("/policies", (c) => render(c, deps));
    registerKeyPolicyPage(router, deps);
    router.post("/policies", async (c) => {
      const form = await formFields(c);
      try {
        await updatePolicy(deps, c.var.access, c.var.viewer, {
          ...policyFormEdit(form),
          ...remoteChange(form),
        });
        return await render(c, deps, { notice: "Policy saved; gateways apply it within 30 s." });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
    // The dry run answers a POST (its text is never put in an address); its address, reloaded
    // or bookmarked, leads back to the page with the form.
    router.get(
      "/policies/dry-run",
      (c) => c.redirect(`/orgs/${c.var.access.org.id}/policies`, 303),
    );
    router.post("/policies/dry-run", async (c) => {
      const form = await formFields(c);
      try {
        const dry = await dryRun(deps, c.var.access, {
          model: form.model ?? "",
          text: form.text || undefined,
          channel: form.channel === "tool" ? "tool" : "user",
        });
        return await render(c, deps, { dry });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { dryError: e.message, status: e.status });
      }
    });
  },
};
