/**
 * Credits: balance, the ledger, the operator's grant and correction forms, the low-balance
 * threshold.
 */
import type { Context } from "hono";
import type { OrgPage } from "./nav.ts";
import type { DashboardDeps, DashEnv } from "../deps.ts";
import { ErrorNote, frameFor, Layout } from "./layout.tsx";
import { grantCredits, ledger, updateSettings } from "../areas/credits.ts";
import { correctCredits } from "../areas/operator_actions.ts";
import { can } from "../access.ts";
import { eurFieldValue, formatEur, parseEur } from "../money.ts";
import { formError, formFields, optionalInt } from "./form.ts";
import { badInput } from "../errors.ts";
import { Notice, ScrollRegion } from "./regions.tsx";

async function render(
  c: Context<DashEnv>,
  deps: DashboardDeps,
  extra: { error?: string; status?: number; notice?: string } = {},
) {
  const access = c.var.access;
  const data = await ledger(deps, access);
  const frame = await frameFor(deps, c.var.viewer, access, "Credits", "credits");
  const base = `/orgs/${access.org.id}/credits`;
  const threshold = data.settings.low_balance_micro_eur;
  return c.html(
    <Layout {...frame}>
      <ErrorNote message={extra.error} />
      {extra.notice && <Notice>{extra.notice}</Notice>}
      <div class="cards">
        <div class="card">
          <div class="label">Balance</div>
          <div class="value" id="balance">{formatEur(data.balance_micro_eur)}</div>
        </div>
        <div class="card">
          <div class="label">Low-balance warning below</div>
          <div class="value">{threshold === null ? "off" : formatEur(threshold)}</div>
        </div>
        <div class="card">
          <div class="label">Key RPM ceiling</div>
          <div class="value">{data.settings.rpm_ceiling ?? "none"}</div>
        </div>
      </div>
      <div class="grid2">
        {can(access, "operate") && (
          <div class="panel">
            <h2>Grant credits (operator)</h2>
            <form method="post" action={`${base}/grant`} class="row">
              <label>
                Amount (EUR)<input
                  name="amount_eur"
                  required
                  inputmode="decimal"
                  placeholder="50.00"
                />
              </label>
              <label>
                Note<input name="note" maxlength={200} placeholder="e.g. invoice 2026-114" />
              </label>
              <button type="submit">Grant</button>
            </form>
            <form method="post" action={`${base}/settings`} class="row">
              <label>
                Key RPM ceiling<input
                  name="rpm_ceiling"
                  inputmode="numeric"
                  placeholder="none"
                  value={data.settings.rpm_ceiling?.toString() ?? ""}
                />
              </label>
              <button type="submit" class="secondary">Save ceiling</button>
            </form>
            <h2>Correct a grant (operator)</h2>
            <p class="muted">
              A compensating entry with its reason; the grant itself stays as it was.
            </p>
            <form method="post" action={`${base}/correct`} class="row" id="correct-form">
              <label>
                Amount (EUR, negative takes back)<input
                  name="amount_eur"
                  required
                  inputmode="decimal"
                  placeholder="-50.00"
                />
              </label>
              <label>
                Grant<select name="corrects">
                  <option value="">(none named)</option>
                  {data.lines.filter((l) => l.kind === "grant").map((l) => (
                    <option value={l.id}>
                      {l.time.slice(0, 10)} {formatEur(l.amount_micro_eur)} {l.note ?? ""}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Reason<input name="reason" required maxlength={200} placeholder="why" />
              </label>
              <button type="submit" class="danger">Record correction</button>
            </form>
          </div>
        )}
        {can(access, "manage_members") && (
          <div class="panel">
            <h2>Low-balance warning</h2>
            <form method="post" action={`${base}/settings`} class="row">
              <label>
                Warn below (EUR; empty = off)<input
                  name="low_balance_eur"
                  inputmode="decimal"
                  value={threshold === null ? "" : eurFieldValue(threshold)}
                />
              </label>
              <button type="submit" class="secondary">Save</button>
            </form>
          </div>
        )}
      </div>
      <div class="panel">
        <h2>Ledger</h2>
        <ScrollRegion label="Ledger">
          <table id="ledger">
            <thead>
              <tr>
                <th>When</th>
                <th>Kind</th>
                <th class="num">Amount</th>
                <th>By</th>
                <th>Note</th>
              </tr>
            </thead>
            <tbody>
              {data.lines.map((l) => (
                <tr>
                  <td>
                    {l.kind === "spend"
                      ? l.time.slice(0, 10)
                      : l.time.slice(0, 16).replace("T", " ")}
                  </td>
                  <td>
                    <span class={`pill ${l.kind === "grant" ? "ok" : ""}`}>
                      {l.kind === "spend" ? "daily spend" : l.kind}
                    </span>
                  </td>
                  <td class="num">{formatEur(l.amount_micro_eur)}</td>
                  <td>{l.actor ?? <span class="muted">usage</span>}</td>
                  <td>{l.note ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        {data.lines.length === 0 && <p class="muted">No grants or spend yet.</p>}
      </div>
    </Layout>,
    (extra.status ?? 200) as 200,
  );
}

export const creditsPage: OrgPage = {
  path: "credits",
  title: "Credits",
  visible: () => true,
  register(router, deps) {
    router.get("/credits", (c) => render(c, deps));
    router.post("/credits/grant", async (c) => {
      const form = await formFields(c);
      try {
        const amount = parseEur(form.amount_eur ?? "");
        if (amount === undefined || amount <= 0) {
          throw badInput("Give a positive amount in EUR (up to 6 decimals).", "amount_eur");
        }
        const result = await grantCredits(deps, c.var.access, c.var.viewer, {
          amount_micro_eur: amount,
          note: form.note,
        });
        return await render(c, deps, {
          notice: `Granted ${formatEur(amount)}; balance ${formatEur(result.balance_micro_eur)}.`,
        });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
    router.post("/credits/correct", async (c) => {
      const form = await formFields(c);
      try {
        const raw = (form.amount_eur ?? "").trim();
        const negative = raw.startsWith("-");
        const amount = parseEur(negative ? raw.slice(1) : raw);
        if (amount === undefined || amount === 0) {
          throw badInput("Give a non-zero amount in EUR (up to 6 decimals).", "amount_eur");
        }
        const result = await correctCredits(deps, c.var.viewer, {
          org: c.var.access.org.id,
          amount_micro_eur: negative ? -amount : amount,
          reason: form.reason ?? "",
          corrects: form.corrects,
        });
        return await render(c, deps, {
          notice: `Correction of ${formatEur(result.amount_micro_eur)} recorded; balance ${
            formatEur(result.balance_micro_eur)
          }.`,
        });
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
    });
    router.post("/credits/settings", async (c) => {
      const form = await formFields(c);
      try {
        const input: Parameters<typeof updateSettings>[3] = {};
        if ("low_balance_eur" in form) {
          const raw = form.low_balance_eur!.trim();
          const v = raw === "" ? null : parseEur(raw);
          if (v === undefined) throw badInput("Give an amount in EUR.", "low_balance_eur");
          input.low_balance_micro_eur = v;
        }
        if ("rpm_ceiling" in form) {
          const v = optionalInt(form.rpm_ceiling);
          if (Number.isNaN(v)) throw badInput("Give a whole number.", "rpm_ceiling");
          input.rpm_ceiling = v ?? null;
        }
        await updateSettings(deps, c.var.access, c.var.viewer, input);
      } catch (error) {
        const e = formError(error);
        return await render(c, deps, { error: e.message, status: e.status });
      }
      return c.redirect(`/orgs/${c.var.access.org.id}/credits`, 303);
    });
  },
};
