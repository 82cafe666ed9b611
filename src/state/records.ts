/** What the state layer stores and returns. Plain data; no prompts, no completions. */
import type { EndpointName } from "../billed_endpoints.ts";
import type { BudgetPeriod } from "../util/budget_period.ts";
import type { UsageColumn, UsageColumns } from "../billed_quantities.ts";

export interface OrgRecord {
  id: string;
  name: string;
  created: string;
}

export interface OrgView extends OrgRecord {
  balance_micro_eur: number;
  granted_micro_eur: number;
  spent_micro_eur: number;
}

export interface ApiKeyRecord {
  id: string;
  org: string;
  name: string | null;
  rpm: number;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  hash: string;
  /** The first characters of the key, for recognising it in listings. */
  prefix: string;
  created: string;
  revoked: boolean;
  revoked_at: string | null;
  /**
   * From this time (ISO) the key answers 401 `api_key_expired`; null or absent: it never
   * expires. A rotation sets it on the key it replaces (the grace period's end).
   */
  expires_at?: string | null;
  /** The key this one replaced by a rotation (its successor shown once). */
  rotated_from?: string | null;
  /** The key that replaced this one; set by the rotation, the old key expires after its grace. */
  rotated_to?: string | null;
  /**
   * The most the key may spend in one `budget_period` (micro-EUR); null or absent: no budget
   * (the organization's balance alone bounds it).
   */
  budget_micro_eur?: number | null;
  budget_period?: BudgetPeriod | null;
}

/**
 * One line of `admin requests`: the contract's fields, nothing else. Its usage columns
 * (`prompt_tokens` …, `cached_tokens` …) are `billed_quantities.ts` `USAGE_FIELDS`.
 */
export interface RequestRecord extends UsageColumns {
  id: string;
  created: string;
  org: string;
  key_id: string;
  user: string | null;
  endpoint: EndpointName;
  requested_model: string;
  served_model: string | null;
  provider: string | null;
  status: number;
  latency_ms: number;
  cost_micro_eur: number;
  estimated: boolean;
  stream: boolean;
  fallbacks: number;
  /**
   * The cost with every prompt token at the prompt price, less `cost_micro_eur`: what the cache
   * saved (negative while writes, dearer than input, are not yet read back); 0 without caching.
   */
  cache_savings_micro_eur: number;
  /** Set when the organization's guardrail flagged the request (never the matched text). */
  guardrail?: GuardrailMetadata;
  /** Set when the organization's policy refused the request (403): the rules, as named to the client. */
  policy_refusal?: string;
  /** Only on `router/<id>` requests: the routing policy that chose `served_model`. */
  routing_policy?: string;
  /**
   * On every row whose status is 400 or more: the `code` of the error object the client got
   * (`rate_limit_exceeded`, `model_not_found` …). Never the body.
   */
  error_code?: string;
  /**
   * Only on a row that stands for several refusals of one key, error code and minute (a 429
   * flood, `billing/refused_rows.ts`): how many; the first of them has a row of its own.
   */
  refused_count?: number;
  /**
   * Only on a request settled from its admission record after its process ended without
   * settling it (kill -9): usage estimated before the upstream call, `status` 0 (unknown).
   */
  recovered?: true;
}

/**
 * What a request that reached the providers left in the store before its first upstream call,
 * written with its rate-bucket increment and deleted with its settle. One
 * still there when its instance's lease ran out is settled from here (`recovered`).
 */
export interface AdmissionRecord {
  /** The request record it becomes, settled from estimates: status 0, `recovered`. */
  record: RequestRecord;
  /** The process that admitted it (its lease says whether it is still alive). */
  instance: string;
}

/**
 * The admission records one group commit wrote on Deno KV (`kv/admission_rows.ts`): one row
 * for many requests, deleted with the settle of the last of them. A listed request that has a
 * request row is settled; recovery bills the others.
 */
export interface AdmissionRow {
  records: RequestRecord[];
  instance: string;
}

/** The guardrail's note in a request's metadata. */
export interface GuardrailMetadata {
  mode: "off" | "flag" | "block";
  /** `error`: the scan itself failed (flag mode serves; block mode refuses with 503). */
  verdict: "pass" | "flag" | "block" | "error";
  /** The rule id that decided, e.g. `PI-OVR-DE-01` or `PI-MODEL`. */
  rule: string | null;
  /** Where: `messages[3]`, `input[2]`. */
  at: string | null;
  score: number;
  /** In flag mode: whether `block` would have refused the request. */
  would_block: boolean;
  coverage: "full" | "partial";
  version: string;
  /**
   * Which layer decided: `local` (the in-process scan) or `remote` (the organization's remote
   * classifier blocked, or in flag mode would have, a borderline request). Absent on records
   * written before the remote layer existed (local).
   */
  layer?: "local" | "remote";
  /** Set when a borderline verdict was escalated to the remote classifier (never the text). */
  remote?: GuardrailRemoteMetadata;
}

/** The remote classifier's part in a request's guardrail note. */
export interface GuardrailRemoteMetadata {
  /** The catalog moderation model asked. */
  model: string;
  provider: string | null;
  /**
   * `timeout` / `error`: no usable answer (`on_error` then decided); `cancelled`: the client
   * left while the classifier was being asked (the request ended with 499).
   */
  verdict: "block" | "pass" | "timeout" | "error" | "cancelled";
  /** The highest injection-category score, null without an answer. */
  score: number | null;
  /** The injection category that decided, e.g. `jailbreaking`. */
  category: string | null;
  on_error: "open" | "closed";
  latency_ms: number;
}

/** What the gate reads before a request: one `getMany`. */
export interface GateSnapshot {
  rateCurrent: number;
  ratePrevious: number;
  balanceMicroEur: bigint;
  /** The key's spend in the budget period asked for (0 when none was). */
  keySpentMicroEur?: bigint;
}

/**
 * The contract's request-metadata fields, in its order (listings, CSV export), then the prompt
 * cache's (an addition, documented in docs/operator-contract.md).
 */
export const REQUEST_RECORD_FIELDS = [
  "id",
  "created",
  "org",
  "key_id",
  "user",
  "endpoint",
  "requested_model",
  "served_model",
  "provider",
  "status",
  "latency_ms",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "audio_seconds",
  "characters",
  "cost_micro_eur",
  "estimated",
  "stream",
  "fallbacks",
  "cached_tokens",
  "cache_write_tokens",
  "cache_write_1h_tokens",
  "cache_savings_micro_eur",
] as const satisfies readonly (keyof RequestRecord)[];

/** Every usage column is listed above (a new one in `billed_quantities.ts` fails here). */
const USAGE_COLUMNS_LISTED: Exclude<UsageColumn, (typeof REQUEST_RECORD_FIELDS)[number]> extends
  never ? true
  : never = true;
void USAGE_COLUMNS_LISTED;
