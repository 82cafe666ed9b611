/**
 * Usage: per-day series over 7/30/90 days (totals from the settle's daily aggregates; the
 * split by model and by key from the kept request metadata), and the recent-requests table
 * with filters and CSV export — metadata only, never content.
 */
import type { DashboardDeps, OrgAccess } from "../deps.ts";
import { REQUEST_RECORD_FIELDS, type RequestRecord } from "../../state/records.ts";
import { badInput } from "../errors.ts";
import { lastDays } from "./days.ts";

export const USAGE_RANGES = [7, 30, 90] as const;
const SCAN_LIMIT = 50_000;
export const METRICS = [
  "cost_micro_eur",
  "requests",
  "tokens",
  "audio_seconds",
  "characters",
] as const;
export type Metric = typeof METRICS[number];

type Series = Record<Metric, number[]>;

/** The prompt cache over the range, from the daily aggregates. */
export interface CacheSummary {
  prompt_tokens: number;
  /** Of `prompt_tokens`: read from a provider's cache, and written to it. */
  cached_tokens: number;
  cache_write_tokens: number;
  /** What caching saved, net of the dearer cache writes (may be negative). */
  saved_micro_eur: number;
  /** Cached tokens per day, for the chart. */
  cached_per_day: number[];
}

export interface UsageSeries {
  days: string[];
  totals: Series;
  cache: CacheSummary;
  by_model: Record<string, Series>;
  by_key: Record<string, Series>;
  /** True when the split is built from fewer rows than the range held (scan limit). */
  split_truncated: boolean;
}

function emptySeries(n: number): Series {
  return {
    cost_micro_eur: Array(n).fill(0),
    requests: Array(n).fill(0),
    tokens: Array(n).fill(0),
    audio_seconds: Array(n).fill(0),
    characters: Array(n).fill(0),
  };
}

export function parseRange(raw: string | undefined): number {
  const days = raw === undefined ? 30 : Number(raw);
  if (!(USAGE_RANGES as readonly number[]).includes(days)) {
    throw badInput("days must be 7, 30 or 90.", "days");
  }
  return days;
}

export async function usageSeries(
  deps: DashboardDeps,
  access: OrgAccess,
  rangeDays: number,
): Promise<UsageSeries> {
  const now = deps.now();
  const days = lastDays(now, rangeDays);
  const index = new Map(days.map((d, i) => [d, i]));
  const totals = emptySeries(days.length);
  const cache: CacheSummary = {
    prompt_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    saved_micro_eur: 0,
    cached_per_day: Array(days.length).fill(0),
  };
  for (const u of await deps.control.usageDays(access.org.id, days[0]!, days.at(-1)!)) {
    const i = index.get(u.day);
    if (i === undefined) continue;
    cache.prompt_tokens += u.prompt_tokens;
    cache.cached_tokens += u.cached_tokens;
    cache.cache_write_tokens += u.cache_write_tokens;
    cache.saved_micro_eur += u.cache_savings_micro_eur - u.cache_surcharge_micro_eur;
    cache.cached_per_day[i] = u.cached_tokens;
    totals.cost_micro_eur[i] = u.cost_micro_eur;
    totals.requests[i] = u.requests;
    totals.tokens[i] = u.prompt_tokens + u.completion_tokens;
    totals.audio_seconds[i] = u.audio_seconds;
    totals.characters[i] = u.characters;
  }
  const rows = await deps.control.requestsBetween(
    access.org.id,
    new Date(Date.parse(days[0]!)),
    new Date(now + 60_000),
    SCAN_LIMIT,
  );
  const by_model: Record<string, Series> = {};
  const by_key: Record<string, Series> = {};
  for (const r of rows) {
    const i = index.get(r.created.slice(0, 10));
    if (i === undefined) continue;
    const groups = [[by_model, r.requested_model], [by_key, r.key_id]] as const;
    for (const [group, name] of groups) {
      const s = group[name] ??= emptySeries(days.length);
      s.cost_micro_eur[i]! += r.cost_micro_eur;
      s.requests[i]! += r.refused_count ?? 1;
      s.tokens[i]! += (r.prompt_tokens ?? 0) + (r.completion_tokens ?? 0);
      s.audio_seconds[i]! += r.audio_seconds ?? 0;
      s.characters[i]! += r.characters ?? 0;
    }
  }
  return { days, totals, cache, by_model, by_key, split_truncated: rows.length >= SCAN_LIMIT };
}

export interface RequestFilters {
  model?: string | undefined;
  key?: string | undefined;
  /** "ok" (< 400), "error" (≥ 400), or an exact status code. */
  status?: string | undefined;
  user?: string | undefined;
}

export function matches(r: RequestRecord, f: RequestFilters): boolean {
  if (f.model && r.requested_model !== f.model && r.served_model !== f.model) return false;
  if (f.key && r.key_id !== f.key) return false;
  if (f.user && r.user !== f.user) return false;
  if (f.status === "ok" && r.status >= 400) return false;
  if (f.status === "error" && r.status < 400) return false;
  if (f.status && /^\d{3}$/.test(f.status) && r.status !== Number(f.status)) return false;
  return true;
}

export async function recentRequests(
  deps: DashboardDeps,
  access: OrgAccess,
  filters: RequestFilters,
  limit: number,
): Promise<RequestRecord[]> {
  const now = deps.now();
  const out: RequestRecord[] = [];
  const rows = await deps.control.requestsBetween(
    access.org.id,
    new Date(now - deps.config.retentionDays * 86_400_000),
    new Date(now + 60_000),
    SCAN_LIMIT,
  );
  for (const r of rows) {
    if (!matches(r, filters)) continue;
    out.push(r);
    if (out.length >= limit) break;
  }
  return out;
}

/** The contract's metadata fields, in its order, then the additions a refusal's row carries. */
export const CSV_FIELDS = [...REQUEST_RECORD_FIELDS, "error_code", "refused_count"] as const;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  // Quote what needs it; neutralise spreadsheet formulas in free-text fields (end-user ids).
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === "string" ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(rows: RequestRecord[]): string {
  const lines = [CSV_FIELDS.join(",")];
  for (const r of rows) lines.push(CSV_FIELDS.map((f) => csvCell(r[f])).join(","));
  return lines.join("\r\n") + "\r\n";
}
