/** Overview: balance, spend today and this month, requests and error rate today, 30 days. */
import type { OrgPage } from "./nav.ts";
import { frameFor, Layout } from "./layout.tsx";
import { overview } from "../areas/overview.ts";
import { formatEur } from "../money.ts";
import { Chart } from "./chart.tsx";

export const overviewPage: OrgPage = {
  path: "overview",
  title: "Overview",
  visible: () => true,
  register(router, deps) {
    router.get("/overview", async (c) => {
      const data = await overview(deps, c.var.access);
      const frame = await frameFor(deps, c.var.viewer, c.var.access, "Overview", "overview");
      return c.html(
        <Layout {...frame}>
          <div class="cards">
            <div class="card">
              <div class="label">Balance</div>
              <div class="value" id="balance">{formatEur(data.balance_micro_eur)}</div>
            </div>
            <div class="card">
              <div class="label">Spend today</div>
              <div class="value">{formatEur(data.spend_today_micro_eur)}</div>
            </div>
            <div class="card">
              <div class="label">Spend this month</div>
              <div class="value">{formatEur(data.spend_month_micro_eur)}</div>
            </div>
            <div class="card">
              <div class="label">Requests today</div>
              <div class="value" id="requests-today">{data.requests_today}</div>
            </div>
            <div class="card">
              <div class="label">Error rate today</div>
              <div class="value">{(data.error_rate_today * 100).toFixed(1)} %</div>
            </div>
          </div>
          <div class="panel">
            <h2>Cost per day, last 30 days</h2>
            <Chart
              title="Cost per day, last 30 days"
              days={data.daily_cost.map((d) => d.day)}
              series={[{ label: "Cost", values: data.daily_cost.map((d) => d.cost_micro_eur) }]}
              money
            />
          </div>
        </Layout>,
      );
    });
  },
};
