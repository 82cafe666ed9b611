/**
 * Spend alerts (`/orgs/:org/alerts`): the thresholds (balance below, daily spend above, key
 * budget shares), the webhook and e-mail they go to, the signing secret (shown once when
 * created), a test delivery, and the delivery log with every attempt. Owners change them; the
 * rest of the organization reads them.
 */
import type { Context } from "hono";
import type { OrgPage } from "./nav.ts";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { can } from "../access.ts";
import { eurFieldValue, formatEur, parseEur } from "../money.ts";
import { formError, formFields, list } from "./form.ts";
import { badInput } from "../errors.ts";
import { Notice, ScrollRegion } from "./regions.tsx";
import { alertsView, changeAlerts, rotateAlertSecret, sendTestAlert } from "../areas/alerts.ts";
import type { AlertSettingsChange } from "../../alerts/alert_settings.ts";
import type { AlertDelivery } from "../../state/alert_store.ts";

function amountField(form: Record<string, string>, name: string): number | null {
  const raw = (form[name] ?? "").trim();
  if (raw === "") return null;
  const micro = parseEur(raw);
  if (micro === undefined) throw badInput("Give an amount in EUR (up to 6 decimals).", name);
  return micro;
}

function lastAttempt(d: AlertDelivery): string {
  const a = d.attempts.at(-1);
  if (!a) return "";
  return a.error ?? `HTTP ${a.status ?? "—"}`;
}

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; notice?: string; secret?: string } = {},
) {
  const access = c.var.access;
  const { settings: s, deliveries } = await alertsView(deps, access);
  const frame = await frameFor(deps, c.var.viewer, access, "Spend alerts", "alerts");
  const base = `/orgs/${access.org.id}/alerts`;
  const manage = can(access, "manage_members");
  const off = (v: number | null) => v === null ? "off" : formatEur(v);
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.notice && <Notice>{extra.notice}</Notice>}
      {extra.secret && (
        <div class="panel" id="alert-secret">
          <h2>Signing secret</h2>
          <p>
            Copy it now: it is shown only this once. Your receiver verifies each webhook's{" "}
            <code>webhook-signature</code> with it (Standard Webhooks).
          </p>
          <pre><code id="alert-secret-value">{extra.secret}</code></pre>
        </div>
      )}
      <div class="cards">
        <div class="card">
          <div class="label">Balance below</div>
          <div class="value" id="alert-balance">{off(s.balance_below_micro_eur)}</div>
        </div>
        <div class="card">
          <div class="label">Daily spend above</div>
          <div class="value" id="alert-daily">{off(s.daily_spend_above_micro_eur)}</div>
        </div>
        <div class="card">
          <div class="label">Key budget shares</div>
          <div class="value">
            {s.key_budget_percents.length ? s.key_budget_percents.join(" %, ") + " %" : "off"}
          </div>
        </div>
        <div class="card">
          <div class="label">Webhook</div>
          <div class="value" id="alert-webhook">
            {s.webhook_url ? (s.has_secret ? "signed" : "no secret yet") : "off"}
          </div>
        </div>
      </div>
      {manage && (
        <div class="panel">
          <h2>Thresholds and destinations</h2>
          <form method="post" action={`${base}/settings`} class="row" id="alert-settings-form">
            <label>
              Balance below (EUR; empty = off)<input
                name="balance_below_eur"
                inputmode="decimal"
                value={s.balance_below_micro_eur === null
                  ? ""
                  : eurFieldValue(s.balance_below_micro_eur)}
              />
            </label>
            <label>
              Daily spend above (EUR; empty = off)<input
                name="daily_spend_above_eur"
                inputmode="decimal"
                value={s.daily_spend_above_micro_eur === null
                  ? ""
                  : eurFieldValue(s.daily_spend_above_micro_eur)}
              />
            </label>
            <label>
              Key budget shares (%, comma-separated; empty = off)<input
                name="key_budget_percents"
                value={s.key_budget_percents.join(", ")}
              />
            </label>
            <label>
              Webhook URL<input
                name="webhook_url"
                type="url"
                placeholder="https://example.eu/sovra-alerts"
                value={s.webhook_url ?? ""}
              />
            </label>
            <label>
              E-mail<input name="email" type="email" value={s.email ?? ""} />
            </label>
            <button type="submit">Save</button>
          </form>
          <p class="muted">
            Evaluated as requests settle; each crossing is alerted once (the balance again after a
            top-up, the daily spend once per UTC day, each budget share once per period). Gateways
            apply a change within 30 s. Alerts carry amounts and ids, never a prompt.
          </p>
          <form method="post" action={`${base}/secret`} class="row" id="alert-secret-form">
            <button
              type="submit"
              class="secondary"
              hx-confirm={s.has_secret
                ? "Replace the signing secret? Webhooks signed with the old one stop verifying."
                : undefined}
            >
              {s.has_secret ? "Replace signing secret" : "Create signing secret"}
            </button>
          </form>
          <form method="post" action={`${base}/test`} class="row" id="alert-test-form">
            <button type="submit" class="secondary">Send a test webhook</button>
          </form>
        </div>
      )}
      <div class="panel">
        <h2>Deliveries</h2>
        <ScrollRegion label="Alert deliveries">
          <table id="alert-deliveries">
            <thead>
              <tr>
                <th>When</th>
                <th>Alert</th>
                <th>Channel</th>
                <th>Status</th>
                <th class="num">Attempts</th>
                <th>Last answer</th>
                <th>Id</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr>
                  <td>{d.created.slice(0, 19).replace("T", " ")}</td>
                  <td>{d.type}</td>
                  <td>{d.channel}</td>
                  <td>
                    <span class={`pill ${d.status === "delivered" ? "ok" : ""}`}>{d.status}</span>
                  </td>
                  <td class="num">{d.attempts.length}</td>
                  <td>{lastAttempt(d)}</td>
                  <td>
                    <code>{d.id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        {deliveries.length === 0 && <p class="muted">No alerts sent yet.</p>}
      </div>
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

export const alertsPage: OrgPage = {
  path: "alerts",
  title: "Alerts",
  visible: () => true,
  register(router, deps) {
    router.get("/alerts", (c) => render(c, deps));
    router.post("/alerts/settings", async (c) => {
      const form = await formFields(c);
      try {
        const change: AlertSettingsChange = {
          balance_below_micro_eur: amountField(form, "balance_below_eur"),
          daily_spend_above_micro_eur: amountField(form, "daily_spend_above_eur"),
          key_budget_percents: list(form.key_budget_percents).map(Number),
          webhook_url: form.webhook_url ?? null,
          email: form.email ?? null,
        };
        await changeAlerts(deps, c.var.access, c.var.viewer, change);
        return await render(c, deps, { notice: "Alerts saved; gateways apply them within 30 s." });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
    router.post("/alerts/secret", async (c) => {
      try {
        const { secret } = await rotateAlertSecret(deps, c.var.access, c.var.viewer);
        c.header("cache-control", "no-store");
        return await render(c, deps, { secret });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
    router.post("/alerts/test", async (c) => {
      try {
        const d = await sendTestAlert(deps, c.var.access, c.var.viewer);
        const notice = d.status === "delivered"
          ? `Test webhook ${d.id} delivered.`
          : `Test webhook ${d.id} failed: ${lastAttempt(d)}.`;
        return await render(c, deps, { notice });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
  },
};
