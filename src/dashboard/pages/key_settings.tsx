/**
 * One API key's settings (`/orgs/:org/keys/:key`): its state and lifetime, a form to set or
 * remove its expiry, and rotation — a successor shown once (same name, rate limit and
 * narrowing) while this key keeps working for the chosen grace period. Owners and admins change
 * them; every change is audited. The same area functions as the JSON API.
 */
import type { Context, Hono } from "hono";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { can } from "../access.ts";
import { formError, formFields, optionalInt } from "./form.ts";
import { Notice } from "./regions.tsx";
import {
  changeKeyBudget,
  changeKeyExpiry,
  keySettings,
  type RotatedKey,
  rotateKey,
} from "../areas/key_settings.ts";
import { eurFieldValue, formatEur, parseEur } from "../money.ts";
import { badInput } from "../errors.ts";
import { BUDGET_PERIODS, type BudgetPeriod } from "../../util/budget_period.ts";
import { NewKeyPanel } from "./new_key_panel.tsx";

const GRACE_CHOICES: Array<[number, string]> = [
  [0, "none: at once"],
  [3_600, "1 hour"],
  [86_400, "1 day"],
  [7 * 86_400, "7 days"],
  [30 * 86_400, "30 days"],
];

const PERIOD_TEXT: Record<BudgetPeriod, string> = {
  day: "today (UTC)",
  week: "this week (from Monday, UTC)",
  month: "this month (UTC)",
  total: "in total",
};

function percentOf(spent: number, budget: number): number {
  return Math.min(100, Math.floor((spent * 100) / budget));
}

function when(iso: string | null): string {
  return iso === null ? "never" : `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; notice?: string; rotated?: RotatedKey } = {},
) {
  const access = c.var.access;
  const keyId = c.req.param("key")!;
  const key = await keySettings(deps, access, keyId);
  const frame = await frameFor(deps, c.var.viewer, access, `Key ${key.name ?? key.prefix}`, "keys");
  const base = `/orgs/${access.org.id}/keys`;
  const manage = can(access, "manage_keys") && key.state !== "revoked";
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.notice && <Notice>{extra.notice}</Notice>}
      {extra.rotated && (
        <NewKeyPanel
          deps={deps}
          created={extra.rotated.created}
          lead={`The successor of “${key.name ?? key.prefix}”.`}
        />
      )}
      <div class="panel" id="key-lifetime">
        <h2>Key {key.name ?? key.prefix}</h2>
        <p>
          <code>{key.prefix}…</code> <span class={`pill ${key.state}`}>{key.state}</span>
        </p>
        <p>
          Created {when(key.created)}; expires{" "}
          <strong id="key-expires">{when(key.expires_at)}</strong>.
          {key.state === "expired" &&
            " Requests with it are refused with 401 api_key_expired."}
        </p>
        {key.rotated_to && (
          <p id="key-rotated-to">
            Rotated to{" "}
            <a href={`${base}/${key.rotated_to}`}>{key.rotated_to}</a>: this key works until its
            expiry, then only the successor does.
          </p>
        )}
        {key.rotated_from && (
          <p>
            Replaces <a href={`${base}/${key.rotated_from}`}>{key.rotated_from}</a>.
          </p>
        )}
        <p>
          <a href={base}>Back to the keys</a>
        </p>
      </div>
      <div class="panel" id="key-budget">
        <h2>Budget</h2>
        {key.budget
          ? (
            <div>
              <p>
                <label for="key-budget-meter">
                  Spent{" "}
                  <strong id="key-budget-spent">{formatEur(key.budget.spent_micro_eur)}</strong> of
                  {" "}
                  <strong>{formatEur(key.budget.budget_micro_eur)}</strong>{" "}
                  {PERIOD_TEXT[key.budget.budget_period]}
                </label>
              </p>
              <meter
                id="key-budget-meter"
                class="spend-bar"
                min={0}
                max={key.budget.budget_micro_eur}
                low={Math.round(key.budget.budget_micro_eur * 0.8)}
                high={key.budget.budget_micro_eur}
                optimum={0}
                value={Math.min(key.budget.spent_micro_eur, key.budget.budget_micro_eur)}
              >
                {percentOf(key.budget.spent_micro_eur, key.budget.budget_micro_eur)} %
              </meter>
              <p class="muted">
                {key.budget.resets_at
                  ? `Resets ${when(key.budget.resets_at)}.`
                  : "A total budget never resets."}{" "}
                Once it is used up, requests with this key answer 402 key_budget_exceeded.
              </p>
            </div>
          )
          : <p class="muted">No budget: only the organization's balance bounds this key.</p>}
        {manage && (
          <form method="post" action={`${base}/${key.id}/budget`} class="row" id="key-budget-form">
            <label>
              Budget (EUR)<input
                name="budget_eur"
                inputmode="decimal"
                placeholder="50.00"
                value={key.budget ? eurFieldValue(key.budget.budget_micro_eur) : ""}
              />
            </label>
            <label>
              Per<select name="budget_period">
                {BUDGET_PERIODS.map((p) => (
                  <option value={p} selected={(key.budget?.budget_period ?? "month") === p}>
                    {p === "total" ? "total (no reset)" : `${p} (UTC)`}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit">Save budget</button>
            {key.budget && (
              <button type="submit" name="budget_eur" value="off" class="secondary">
                Remove budget
              </button>
            )}
          </form>
        )}
      </div>
      {manage && (
        <div class="panel">
          <h2>Expiry</h2>
          <form method="post" action={`${base}/${key.id}/expiry`} class="row" id="key-expiry-form">
            <label>
              Expires at (UTC, or a duration such as 90d)<input
                name="expires_at"
                placeholder="2027-01-31T00:00:00Z"
                value={key.expires_at ?? ""}
              />
            </label>
            <button type="submit">Set expiry</button>
            <button type="submit" name="expires_at" value="never" class="secondary">
              Never expires
            </button>
          </form>
          <p class="muted">
            After its expiry a key answers 401 with code api_key_expired; gateways apply a change
            within 30 s.
          </p>
        </div>
      )}
      {manage && !key.rotated_to && key.state === "active" && (
        <div class="panel">
          <h2>Rotate</h2>
          <form
            method="post"
            action={`${base}/${key.id}/rotate`}
            class="row"
            id="key-rotate-form"
            hx-confirm="Create a successor key? This key stops working when the grace period ends."
          >
            <label>
              Keep this key working for<select name="grace_seconds">
                {GRACE_CHOICES.map(([seconds, label]) => (
                  <option value={String(seconds)} selected={seconds === 86_400}>{label}</option>
                ))}
              </select>
            </label>
            <button type="submit">Rotate key</button>
          </form>
          <p class="muted">
            The successor has the same name, rate limit and narrowing policy; it is shown once.
          </p>
        </div>
      )}
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

/** The key settings routes, registered by the keys page (`keys.tsx`). */
export function registerKeySettingsPage(router: Hono<DashEnv>, deps: DashboardDeps): void {
  router.get("/keys/:key", (c) => render(c, deps));
  router.post("/keys/:key/expiry", async (c) => {
    const form = await formFields(c);
    try {
      const raw = form.expires_at?.trim() || "never";
      await changeKeyExpiry(
        deps,
        c.var.access,
        c.var.viewer,
        c.req.param("key"),
        raw === "never" ? null : raw,
      );
      return await render(c, deps, { notice: "Expiry saved; gateways apply it within 30 s." });
    } catch (error) {
      const e = formError(error);
      return await render(c, deps, { error: e.message, status: e.status });
    }
  });
  router.post("/keys/:key/budget", async (c) => {
    const form = await formFields(c);
    try {
      const raw = (form.budget_eur ?? "").trim();
      const amount = raw === "" || raw === "off" ? null : parseEur(raw);
      if (amount === undefined) {
        throw badInput("Give the budget in EUR (up to 6 decimals).", "budget_eur");
      }
      await changeKeyBudget(deps, c.var.access, c.var.viewer, c.req.param("key"), {
        budget_micro_eur: amount,
        budget_period: form.budget_period,
      });
      return await render(c, deps, {
        notice: amount === null
          ? "Budget removed; gateways apply it within 30 s."
          : "Budget saved; gateways apply it within 30 s.",
      });
    } catch (error) {
      const e = formError(error);
      return await render(c, deps, { error: e.message, status: e.status });
    }
  });
  router.post("/keys/:key/rotate", async (c) => {
    const form = await formFields(c);
    try {
      const rotated = await rotateKey(deps, c.var.access, c.var.viewer, c.req.param("key"), {
        grace_seconds: optionalInt(form.grace_seconds),
      });
      c.header("cache-control", "no-store");
      return await render(c, deps, { rotated });
    } catch (error) {
      const e = formError(error);
      return await render(c, deps, { error: e.message, status: e.status });
    }
  });
}
