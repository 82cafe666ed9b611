/**
 * Usage: per-day charts (cost, requests, tokens, audio seconds, characters) in total, by model
 * or by key over 7/30/90 days; the recent-requests table with filters and CSV export.
 */
import type { OrgPage } from "./nav.ts";
import { frameFor, Layout } from "./layout.tsx";
import {
  type Metric,
  METRICS,
  parseRange,
  recentRequests,
  USAGE_RANGES,
  usageSeries,
} from "../areas/usage.ts";
import { formatEur } from "../money.ts";
import { badInput } from "../errors.ts";
import { Chart, type ChartProps, formatCount } from "./chart.tsx";
import { ScrollRegion } from "./regions.tsx";
import { PromptCachePanel } from "./usage_cache.tsx";

const LABELS: Record<Metric, string> = {
  cost_micro_eur: "Cost",
  requests: "Requests",
  tokens: "Tokens",
  audio_seconds: "Audio seconds",
  characters: "Characters",
};
const GROUPS = ["total", "model", "key"] as const;

export const usagePage: OrgPage = {
  path: "usage",
  title: "Usage",
  visible: () => true,
  register(router, deps) {
    router.get("/usage", async (c) => {
      const access = c.var.access;
      const days = parseRange(c.req.query("days"));
      const group = c.req.query("group") ?? "total";
      if (!(GROUPS as readonly string[]).includes(group)) throw badInput("Unknown grouping.");
      const filters = {
        model: c.req.query("model") || undefined,
        key: c.req.query("key") || undefined,
        status: c.req.query("status") || undefined,
        user: c.req.query("user") || undefined,
      };
      const [series, rows, keys] = await Promise.all([
        usageSeries(deps, access, days),
        recentRequests(deps, access, filters, 100),
        deps.store.listApiKeys(access.org.id),
      ]);
      const keyName = new Map(keys.map((k) => [k.id, k.name ?? k.prefix]));
      const frame = await frameFor(deps, c.var.viewer, access, "Usage", "usage");
      const base = `/orgs/${access.org.id}/usage`;
      const query = (p: Record<string, string | number>) =>
        `${base}?${new URLSearchParams(
          { days: String(days), group, ...p } as Record<string, string>,
        )}`;
      const csv = `/api/orgs/${access.org.id}/requests.csv?${new URLSearchParams(
        Object.entries(filters).filter(([, v]) => v) as [string, string][],
      )}`;
      const chartFor = (metric: Metric): ChartProps => {
        const label = LABELS[metric];
        const groups = group === "model" ? series.by_model : group === "key" ? series.by_key : null;
        const lines = groups
          ? Object.entries(groups).map(([name, s]) => ({
            label: group === "key" ? keyName.get(name) ?? name : name,
            values: s[metric],
          }))
          : [{ label, values: series.totals[metric] }];
        return {
          title: `${label} per day, last ${days} days`,
          days: series.days,
          series: lines,
          money: metric === "cost_micro_eur",
          legend: true,
        };
      };
      const models = Object.keys(series.by_model).sort();
      return c.html(
        <Layout {...frame}>
          <div class="panel tabs">
            Range:{" "}
            {USAGE_RANGES.map((d) => (
              <a href={query({ days: d })} aria-current={d === days ? "true" : undefined}>
                {d} days
              </a>
            ))}
            <span class="muted">·</span> Split:{" "}
            {GROUPS.map((g) => (
              <a href={query({ group: g })} aria-current={g === group ? "true" : undefined}>
                {g === "total" ? "total" : `by ${g}`}
              </a>
            ))}
          </div>
          <div class="grid2">
            {METRICS.map((m) => (
              <div class="panel">
                <h2>{LABELS[m]} per day</h2>
                <Chart {...chartFor(m)} />
              </div>
            ))}
          </div>
          <PromptCachePanel cache={series.cache} days={series.days} range={days} />
          <div class="panel">
            <h2>Recent requests</h2>
            <form method="get" action={base} class="row">
              <input type="hidden" name="days" value={String(days)} />
              <input type="hidden" name="group" value={group} />
              <label>
                Model<select name="model">
                  <option value="">all</option>
                  {models.map((m) => <option value={m} selected={filters.model === m}>{m}</option>)}
                </select>
              </label>
              <label>
                Key<select name="key">
                  <option value="">all</option>
                  {keys.map((k) => (
                    <option value={k.id} selected={filters.key === k.id}>
                      {k.name ?? k.prefix}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Status<select name="status">
                  <option value="">all</option>
                  <option value="ok" selected={filters.status === "ok"}>ok</option>
                  <option value="error" selected={filters.status === "error"}>errors</option>
                </select>
              </label>
              <label>
                End-user id<input name="user" value={filters.user ?? ""} />
              </label>
              <button type="submit" class="secondary">Filter</button>
              <a class="button secondary" href={csv} hx-boost="false" download>Export CSV</a>
            </form>
            {
              /* Most telling first: when, what was asked and who served it, the outcome, cost;
                the table scrolls in its own region when the screen is narrower. */
            }
            <ScrollRegion label="Recent requests" id="requests-region">
              <table id="requests" class="compact requests">
                <thead>
                  <tr>
                    <th scope="col" class="sticky">Time (UTC)</th>
                    <th scope="col">Model · provider</th>
                    <th scope="col" class="num">Status · error</th>
                    <th scope="col" class="num">Cost</th>
                    <th scope="col" class="num">Tokens</th>
                    <th scope="col" class="num">Latency</th>
                    <th scope="col">Key</th>
                    <th scope="col">Endpoint</th>
                    <th scope="col">End user</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr>
                      <td class="sticky" title={r.created}>
                        {r.created.slice(5, 19).replace("T", " ")}
                      </td>
                      <td class="model">
                        {r.requested_model}
                        {r.served_model && r.served_model !== r.requested_model &&
                          !r.requested_model.endsWith(`/${r.served_model}`) && (
                          <span class="muted">→ {r.served_model}</span>
                        )}
                        {r.provider && <div class="muted small">{r.provider}</div>}
                      </td>
                      <td class="num">
                        <span class={`pill ${r.status >= 400 ? "error" : "ok"}`}>{r.status}</span>
                        {r.error_code && (
                          <div class="muted small">
                            {r.error_code}
                            {r.refused_count !== undefined && ` × ${r.refused_count}`}
                          </div>
                        )}
                      </td>
                      <td class="num">{formatEur(r.cost_micro_eur, { decimals: 6 })}</td>
                      <td
                        class="num"
                        title={r.cached_tokens || r.cache_write_tokens
                          ? `${r.cached_tokens ?? 0} cached, ${
                            r.cache_write_tokens ?? 0
                          } written to cache`
                          : undefined}
                      >
                        {r.total_tokens === null ? "" : formatCount(r.total_tokens)}
                        {r.estimated ? "*" : ""}
                      </td>
                      <td class="num">{formatCount(r.latency_ms)} ms</td>
                      <td>{keyName.get(r.key_id) ?? r.key_id}</td>
                      <td>
                        {r.endpoint}
                        {r.stream && <div class="muted small">stream</div>}
                      </td>
                      <td class="end-user" title={r.user ?? undefined}>{r.user ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
            {rows.length === 0 && <p class="muted">No requests match.</p>}
            <p class="muted">
              * estimated usage. Metadata only: Sovra never stores prompts or answers.
            </p>
          </div>
        </Layout>,
      );
    });
  },
};
