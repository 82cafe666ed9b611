/**
 * Live latency and error rate per chat model, for the routing page's model table. Read from
 * the request metadata the gateway stores (the dashboard may run apart from the gateway, so
 * it reads the store, not the gateway's in-memory route metrics): the organization's chat and
 * Responses requests of the last `LIVE_MINUTES` minutes.
 *
 * - A request counts for the catalog model it named (`requested_model`); a `router/<id>`
 *   request for the catalog model that served it (its `served_model`). A router request that
 *   no model served is not counted, and the failed attempts before a fallback are not in the
 *   metadata (only their count).
 * - Error: 429 or 5xx, the upstream's trouble; other 4xx are the client's and do not count.
 * - A request no provider was called for (refused by the organization's policy) or whose
 *   gateway died before it ended (status 0, recovered) is not counted.
 * - Latency: the median and the 95th percentile (nearest rank) of the successful requests'
 *   `latency_ms` (the whole request, streamed answers included).
 */
import type { DashboardDeps, OrgAccess } from "../deps.ts";
import { requirePermission } from "../access.ts";
import type { RequestRecord } from "../../state/records.ts";
import { ROUTER_PREFIX } from "../../smart_router/policy.ts";

/** The window the live figures cover. */
export const LIVE_MINUTES = 60;
const LIVE_SCAN = 20_000;

export interface LiveModelStats {
  requests: number;
  errors: number;
  /** errors / requests. */
  errorRate: number;
  /** Over successful requests; absent when there were none. */
  medianLatencyMs?: number;
  p95LatencyMs?: number;
}

/** Model id → its live figures; models without requests in the window are absent. */
export async function liveModelStats(
  deps: DashboardDeps,
  access: OrgAccess,
): Promise<Record<string, LiveModelStats>> {
  requirePermission(access, "read", "see live model figures");
  const now = deps.now();
  const rows = await deps.control.requestsBetween(
    access.org.id,
    new Date(now - LIVE_MINUTES * 60_000),
    new Date(now + 60_000),
    LIVE_SCAN,
  );
  return summarize(rows);
}

export function summarize(rows: readonly RequestRecord[]): Record<string, LiveModelStats> {
  const byModel = new Map<string, { requests: number; errors: number; latencies: number[] }>();
  for (const r of rows) {
    if (r.endpoint !== "chat" && r.endpoint !== "responses") continue;
    // Refused before any provider (organization policy), or ended with its gateway (status 0,
    // recovered from its admission record): nothing the model did.
    if (r.provider === null || r.status === 0) continue;
    const model = r.requested_model.startsWith(ROUTER_PREFIX) ? r.served_model : r.requested_model;
    if (!model) continue;
    const entry = byModel.get(model) ?? { requests: 0, errors: 0, latencies: [] };
    entry.requests++;
    if (r.status === 429 || r.status >= 500) entry.errors++;
    else if (r.status < 400) entry.latencies.push(r.latency_ms);
    byModel.set(model, entry);
  }
  const out: Record<string, LiveModelStats> = {};
  for (const [model, e] of byModel) {
    const sorted = e.latencies.sort((a, b) => a - b);
    out[model] = {
      requests: e.requests,
      errors: e.errors,
      errorRate: e.errors / e.requests,
      ...(sorted.length
        ? { medianLatencyMs: rank(sorted, 0.5), p95LatencyMs: rank(sorted, 0.95) }
        : {}),
    };
  }
  return out;
}

/** Nearest-rank percentile of an ascending list. */
function rank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}
