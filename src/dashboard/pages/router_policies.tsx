/**
 * Routing policies: pick pool models from the catalog table (price, quality, sovereignty,
 * context, tools, live latency and error rate), the strategy and the dial, preview the predicted traffic split and cost per
 * 1,000 requests on the sample set, save; per policy, the served-model split and spend over
 * the last days.
 */
import type { Context } from "hono";
import type { OrgPage } from "./nav.ts";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { can } from "../access.ts";
import { formError, optionalInt } from "./form.ts";
import { formatEur } from "../money.ts";
import { ActionsHeader, Notice, ScrollRegion, VisuallyHidden } from "./regions.tsx";
import {
  chatModels,
  deletePolicy,
  listPolicies,
  type PolicyDraft,
  previewPolicy,
  savePolicy,
  USAGE_DAYS,
} from "../areas/router_policies.ts";
import { LIVE_MINUTES, type LiveModelStats, liveModelStats } from "../areas/model_health.ts";
import type { Prediction } from "../../smart_router/predict.ts";
import { DEFAULT_THRESHOLD } from "../../smart_router/dial.ts";

interface Extra {
  draft?: PolicyDraft;
  prediction?: Prediction;
  saved?: string;
  error?: string;
  status?: number;
}

const percent = (x: number) => `${(100 * x).toFixed(1)} %`;
const latency = (s: LiveModelStats | undefined) =>
  s?.medianLatencyMs === undefined ? "—" : `${s.medianLatencyMs} ms (p95 ${s.p95LatencyMs} ms)`;
const errors = (s: LiveModelStats | undefined) =>
  s === undefined ? "—" : `${percent(s.errorRate)} of ${s.requests}`;

async function render(c: Context<DashEnv>, deps: DashboardDeps, extra: Extra = {}) {
  const access = c.var.access;
  const manage = can(access, "manage_keys");
  const [policies, frame, live] = await Promise.all([
    listPolicies(deps, access),
    frameFor(deps, c.var.viewer, access, "Routing policies", "routing"),
    liveModelStats(deps, access),
  ]);
  const models = chatModels(deps);
  const draft = extra.draft;
  const base = `/orgs/${access.org.id}/routing`;
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.saved && (
        <Notice id="saved">
          Saved. Clients send{" "}
          <code>model: "router/{extra.saved}"</code>; the change is live within 30 s.
        </Notice>
      )}
      <div class="panel">
        <h2>Policies</h2>
        <ScrollRegion label="Routing policies">
          <table id="policies">
            <thead>
              <tr>
                <th>Model</th>
                <th>Strategy</th>
                <th class="num">Dial</th>
                <th>Pool</th>
                <th class="num">Requests ({USAGE_DAYS} days)</th>
                <th>Served by</th>
                <th class="num">Spend</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {policies.map((row) => (
                <tr data-policy={row.policy.id}>
                  <td>
                    <code>router/{row.policy.id}</code>
                    {row.policy.name && <div class="muted">{row.policy.name}</div>}
                  </td>
                  <td>{row.policy.strategy}</td>
                  <td class="num">{row.policy.strategy === "auto" ? row.policy.threshold : "—"}</td>
                  <td>{row.policy.pool.join(", ")}</td>
                  <td class="num">{row.requests}</td>
                  <td class="served">
                    {Object.entries(row.served).map(([model, n]) => (
                      <div>
                        {model}: {percent(n / Math.max(1, row.requests))}
                      </div>
                    ))}
                  </td>
                  <td class="num">{formatEur(row.spendMicroEur)}</td>
                  <td>
                    {manage && (
                      <form
                        method="post"
                        action={`${base}/${row.policy.id}/delete`}
                        class="inline"
                        hx-confirm={`Delete router/${row.policy.id}? Requests naming it get 404 within 30 s.`}
                      >
                        <button type="submit" class="danger">Delete</button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        {policies.length === 0 && <p class="muted">No routing policies yet.</p>}
      </div>
      {manage && (
        <div class="panel">
          <h2>Build a policy</h2>
          <form method="post" action={base} id="policy-form">
            <div class="row">
              <label>
                Id (router/…)<input
                  name="id"
                  required
                  maxlength={63}
                  pattern="[a-z0-9][a-z0-9\-]*"
                  value={draft?.id ?? ""}
                  placeholder="e.g. support"
                />
              </label>
              <label>
                Name<input name="name" maxlength={200} value={draft?.name ?? ""} />
              </label>
              <label>
                Strategy<select name="strategy">
                  {["auto", "metrics", "ordered"].map((s) => (
                    <option value={s} selected={(draft?.strategy ?? "auto") === s}>{s}</option>
                  ))}
                </select>
              </label>
              <label>
                Dial (1 cheapest … 10 strongest)<input
                  name="threshold"
                  type="number"
                  min={1}
                  max={10}
                  value={String(draft?.threshold ?? DEFAULT_THRESHOLD)}
                />
              </label>
              <label>
                Same end-user keeps its model (seconds)<input
                  name="sticky_seconds"
                  inputmode="numeric"
                  value={draft?.sticky_seconds === undefined ? "" : String(draft.sticky_seconds)}
                  placeholder="off"
                />
              </label>
            </div>
            <p class="muted">
              Pool, in order (the order is the fallback chain for the "ordered" strategy). Quality:
              the catalog's figure (0–1, source in the catalog). Latency and errors: this
              organization's requests of the last {LIVE_MINUTES} minutes (errors: 429 and 5xx).
            </p>
            <ScrollRegion label="Catalog models for the pool">
              <table id="models">
                <thead>
                  <tr>
                    <th>
                      <VisuallyHidden>In the pool</VisuallyHidden>
                    </th>
                    <th>Model</th>
                    <th class="num">Per M input tokens</th>
                    <th class="num">Per M output tokens</th>
                    <th class="num">Quality</th>
                    <th>Sovereignty</th>
                    <th class="num">Context</th>
                    <th>Tools</th>
                    <th>Reasoning</th>
                    <th class="num">Latency ({LIVE_MINUTES} min)</th>
                    <th class="num">Errors ({LIVE_MINUTES} min)</th>
                  </tr>
                </thead>
                <tbody>
                  {models.map((m) => (
                    <tr data-model={m.id}>
                      <td>
                        <input
                          type="checkbox"
                          name="pool"
                          value={m.id}
                          aria-label={m.id}
                          checked={draft?.pool.includes(m.id) ?? false}
                        />
                      </td>
                      <td>{m.id}</td>
                      <td class="num">{formatEur(m.promptMicroEurPerMillion)}</td>
                      <td class="num">{formatEur(m.completionMicroEurPerMillion)}</td>
                      <td class="num">{m.quality === undefined ? "—" : m.quality.toFixed(2)}</td>
                      <td>{m.sovereignty}</td>
                      <td class="num">{m.contextLength ?? "—"}</td>
                      <td>{m.tools ? "yes" : "no"}</td>
                      <td>{m.reasoning ? "yes" : "no"}</td>
                      <td class="num live-latency">{latency(live[m.id])}</td>
                      <td class="num live-errors">{errors(live[m.id])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
            <p>
              <button type="submit" name="action" value="preview">Preview the split</button>{" "}
              <button type="submit" name="action" value="save">Save policy</button>
            </p>
          </form>
          {extra.prediction && (
            <div id="prediction">
              <h3>Predicted on {extra.prediction.requests} sample requests</h3>
              <table>
                <thead>
                  <tr>
                    <th>Model</th>
                    <th class="num">Share of requests</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(extra.prediction.share).map(([model, share]) => (
                    <tr data-model={model}>
                      <td>{model}</td>
                      <td class="num">{percent(share)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p id="predicted-cost">
                Cost per 1,000 requests: {formatEur(extra.prediction.costPer1000MicroEur)}{" "}
                (always the most expensive pool model:{" "}
                {formatEur(extra.prediction.strongestCostPer1000MicroEur)}). Prompt sizes from the
                sample, 400 output tokens each; live traffic differs.
              </p>
            </div>
          )}
        </div>
      )}
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

/** The form's draft: checkboxes arrive as one value or a list. */
async function draftOf(c: Context<DashEnv>): Promise<{ draft: PolicyDraft; action: string }> {
  const form = await c.req.parseBody({ all: true });
  const one = (name: string) => {
    const v = form[name];
    const first = Array.isArray(v) ? v[0] : v;
    return typeof first === "string" ? first : undefined;
  };
  const pool = ([] as unknown[]).concat(form.pool ?? []).filter((v): v is string =>
    typeof v === "string"
  );
  return {
    action: one("action") ?? "save",
    draft: {
      id: one("id") ?? "",
      name: one("name"),
      pool,
      strategy: one("strategy") ?? "auto",
      threshold: optionalInt(one("threshold")),
      sticky_seconds: optionalInt(one("sticky_seconds")) || undefined,
    },
  };
}

export const routerPoliciesPage: OrgPage = {
  path: "routing",
  title: "Routing policies",
  visible: () => true,
  register(router, deps) {
    router.get("/routing", (c) => render(c, deps));
    router.post("/routing", async (c) => {
      const { draft, action } = await draftOf(c);
      try {
        if (action === "preview") {
          return await render(c, deps, { draft, prediction: previewPolicy(deps, draft) });
        }
        const saved = await savePolicy(deps, c.var.access, c.var.viewer, draft);
        return await render(c, deps, { saved: saved.id });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { draft, error: e.message, status: e.status });
      }
    });
    router.post("/routing/:id/delete", async (c) => {
      try {
        await deletePolicy(deps, c.var.access, c.var.viewer, c.req.param("id"));
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
      return c.redirect(`/orgs/${c.var.access.org.id}/routing`, 303);
    });
  },
};
